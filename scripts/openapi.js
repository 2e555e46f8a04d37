#!/usr/bin/env node
// npm run openapi: writes docs/openapi.json, the public API's OpenAPI 3.1 document, generated from
// the zod schemas the services validate with (shared/api). The gateway serves the same document at
// /openapi.json; test/unit/openapi-document.test.ts fails when the committed file is out of date.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const OUT = path.join(__dirname, '..', 'docs', 'openapi.json');
const { buildOpenApiDocument } = require('../shared/api/dist/index.js');
fs.writeFileSync(OUT, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`openapi: wrote ${path.relative(process.cwd(), OUT)}`);
