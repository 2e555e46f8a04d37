#!/usr/bin/env node
// The operator CLI; built by `npm install` (postinstall) or `npm run build`.
require('../dist/main.js').main();
