// What the CLI's integration tests share beyond the operator stack (operator-stack.ts): running the
// CLI in-process with a database factory of the test's choosing, the services' databases as their
// roles for the commands that still write one, and a scratch folder for the files a test imports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '@glimpse/db/enrichment';
import { run } from '../src/main';
import type { CliService } from '../src/config';
import { serviceDatabaseUrl } from '../../../test/config';

/** Runs the CLI in-process: exit code, stdout, stderr and stdout as JSON. `openDb` is its database factory (none: the CLI's own). */
export async function runCli(argv: string[], openDb?: (service: CliService) => Db) {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, openDb);
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

/** Each service's database as its role, opened once when a command asks for it; close() disconnects them. */
export function serviceRoleDbs(): { open(service: CliService): Db; close(): Promise<void> } {
  const dbs = new Map<CliService, Db>();
  return {
    open(service) {
      let db = dbs.get(service);
      if (!db) dbs.set(service, (db = createDb({ databaseUrl: serviceDatabaseUrl(service), poolSize: 1 })));
      return db;
    },
    async close() {
      await Promise.all([...dbs.values()].map((db) => db.$disconnect()));
      dbs.clear();
    },
  };
}

/** A fresh folder under the system's temporary one; remove() deletes it with its files. */
export function scratchDir(name: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `glimpse-${name}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
