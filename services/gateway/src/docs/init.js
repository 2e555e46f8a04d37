// The API reference: Swagger UI on the document this gateway serves. No inline script (the page's
// CSP allows scripts from this origin only), no validator badge (it would call a third party).
'use strict';
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
});
