// Runs after `npm install` in this repository: generates the Prisma client so tests and the CLI work at once.
require('./prisma-generate.js').generate();
