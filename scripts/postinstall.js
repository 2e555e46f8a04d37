// Runs after `npm install` and `npm ci` in this repository: generates the Prisma client so tests and
// the CLI work at once, then stamps node_modules with the lockfile it was installed from (npm start
// and npm test run npm ci themselves when that stamp is missing or differs: scripts/ensure-install.js).
require('./prisma-generate.js').generate();
require('./ensure-install.js').writeStamp();
