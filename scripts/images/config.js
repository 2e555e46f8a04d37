// The only place the image and deployment scripts (images, deploy:smoke, capacity) read
// environment variables; everything else takes these values as arguments.
'use strict';
const fs = require('node:fs');
const { DEFAULTS } = require('../infra/env.js');

function imagesEnv(env = process.env) {
  // A CA bundle for a TLS proxy in front of the npm registry, passed to the build as a secret.
  const ca = env.NPM_CA_FILE || env.NODE_EXTRA_CA_CERTS;
  return {
    NODE_IMAGE: env.NODE_IMAGE || undefined,
    NODE_BUILD_IMAGE: env.NODE_BUILD_IMAGE || undefined,
    NPM_CA_FILE: ca && fs.existsSync(ca) ? ca : undefined,
  };
}

/** deploy:smoke runs against this checkout's own infrastructure (.wt-env or the defaults). */
function smokeEnv(env = process.env) {
  return {
    databaseUrl: env.DATABASE_URL || DEFAULTS.DATABASE_URL,
    redisUrl: env.REDIS_URL || DEFAULTS.REDIS_URL,
    kafkaBrokers: env.KAFKA_BROKERS || DEFAULTS.KAFKA_BROKERS,
  };
}

module.exports = { imagesEnv, smokeEnv };
