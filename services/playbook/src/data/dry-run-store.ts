// The dry run's reads (domain/dry-run.ts's DryRunStore) in one READ ONLY transaction: the batch
// apply's own plan reads (loadPlanState), the catalog as every reader sees it, and playbook names.
import type { Db } from '@glimpse/db/playbook';
import type { DryRunStore } from '../domain/dry-run.js';
import { loadPlanState } from './batch-store.js';
import { catalogSize, namesInCatalog } from './playbook-repository.js';

export function createDryRunStore(db: Db): DryRunStore {
  return {
    readOnly: (work) =>
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe('SET TRANSACTION READ ONLY');
        return work({
          planState: (events) => loadPlanState(tx, events),
          inCatalog: async (accountId, name, maxNames) => (await namesInCatalog(tx, accountId, [name], maxNames)).has(name),
          catalogSize: (accountId, maxNames) => catalogSize(tx, accountId, maxNames),
          playbookNames: async (accountId, ids) =>
            new Map((await tx.playbook.findMany({ where: { id: { in: ids }, accountId }, select: { id: true, name: true } })).map((p) => [p.id, p.name])),
        });
      }),
  };
}
