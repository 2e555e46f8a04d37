// Each service's Prisma client, for the scripts that set data up across services (the demo seed,
// the benches, the chaos run): a service's client holds only its own schema's models, so a script
// that creates an account (identity) and a playbook (playbook) opens both. Each is opened on first
// use; disconnect() closes the ones that were. Requires the build (shared/db/dist).
'use strict';

/**
 * @param {string} databaseUrl
 * @param {number} [poolSize]
 */
function openServiceDbs(databaseUrl, poolSize = 2) {
  /** @type {{ $disconnect(): Promise<void> }[]} */
  const opened = [];
  /**
   * @template T
   * @param {(options: { databaseUrl: string, poolSize: number }) => T & { $disconnect(): Promise<void> }} create
   * @returns {T}
   */
  const open = (create) => {
    const db = create({ databaseUrl, poolSize });
    opened.push(db);
    return db;
  };
  /** @type {import('../shared/db/dist/identity.js').Db | undefined} */ let identity;
  /** @type {import('../shared/db/dist/playbook.js').Db | undefined} */ let playbook;
  /** @type {import('../shared/db/dist/enrichment.js').Db | undefined} */ let enrichment;
  /** @type {import('../shared/db/dist/webhooks.js').Db | undefined} */ let webhooks;
  /** @type {import('../shared/db/dist/visitors.js').Db | undefined} */ let visitors;
  return {
    get identity() {
      return (identity ??= open(require('../shared/db/dist/identity.js').createDb));
    },
    get playbook() {
      return (playbook ??= open(require('../shared/db/dist/playbook.js').createDb));
    },
    get enrichment() {
      return (enrichment ??= open(require('../shared/db/dist/enrichment.js').createDb));
    },
    get webhooks() {
      return (webhooks ??= open(require('../shared/db/dist/webhooks.js').createDb));
    },
    get visitors() {
      return (visitors ??= open(require('../shared/db/dist/visitors.js').createDb));
    },
    async disconnect() {
      await Promise.all(opened.splice(0).map((db) => db.$disconnect()));
    },
  };
}

module.exports = { openServiceDbs };
