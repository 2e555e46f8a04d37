// What the CLI's integration tests run against: a real gateway with an operator token, wired to real
// playbook, enrichment and visitors services (Postgres, Kafka), and the CLI configured to go through
// it (GLIMPSE_URL, GLIMPSE_OPERATOR_TOKEN). The CLI opens no database but the enrichment service's
// (the imports): any other is refused and recorded.
import { randomBytes } from 'node:crypto';
import { createDb, type Db } from '@glimpse/db/enrichment';
import type { RunningEnrichmentService } from '@glimpse/enrichment';
import type { RunningGateway } from '@glimpse/gateway';
import type { RunningPlaybookService } from '@glimpse/playbook';
import type { RunningVisitorsService } from '@glimpse/visitors';
import { closeTestDb, startTestEnrichmentService, startTestGateway, startTestPlaybookService } from '../../../test/support/stack';
import { startTestVisitorsService } from '../../../test/support/visitors';
import { serviceDatabaseUrl, setEnv } from '../../../test/config';
import { runCli } from './support';

export interface CliStack {
  gateway: RunningGateway;
  token: string;
  stop(): Promise<void>;
}

/** The services and a gateway with OPERATOR_TOKEN; the CLI's environment points at it until stop(). */
export async function startCliStack({
  gateway: gatewayEnv = {},
  playbook: playbookEnv = {},
}: { gateway?: Record<string, string>; playbook?: Record<string, string> } = {}): Promise<CliStack> {
  const token = randomBytes(32).toString('hex');
  let playbook: RunningPlaybookService | undefined;
  let enrichment: RunningEnrichmentService | undefined;
  let visitors: RunningVisitorsService | undefined;
  [playbook, enrichment, visitors] = await Promise.all([startTestPlaybookService(playbookEnv), startTestEnrichmentService(), startTestVisitorsService()]);
  const gateway = await startTestGateway({
    OPERATOR_TOKEN: token,
    PLAYBOOK_URL: playbook.url,
    ENRICHMENT_URL: enrichment.url,
    VISITORS_URL: visitors.url,
    ...gatewayEnv,
  });
  const restoreEnv = setEnv({ GLIMPSE_URL: gateway.url, GLIMPSE_OPERATOR_TOKEN: token });
  return {
    gateway,
    token,
    async stop() {
      restoreEnv();
      await gateway.stop();
      await Promise.all([playbook?.stop(), enrichment?.stop(), visitors?.stop()]);
      playbook = enrichment = visitors = undefined;
    },
  };
}

const dbs = new Map<string, Db>();
/** Every database the CLI asked for, in order (the tests check it asked for none but the enrichment one). */
export const opened: string[] = [];

/** The enrichment service's database as its role, the only one the CLI may open. */
function roleDb(service: string): Db {
  opened.push(service);
  if (service !== 'enrichment') throw new Error(`the CLI opened the ${service} database`);
  let db = dbs.get(service);
  if (!db) dbs.set(service, (db = createDb({ databaseUrl: serviceDatabaseUrl(service), poolSize: 2 })));
  return db;
}

export async function closeCliDbs(): Promise<void> {
  await Promise.all([...dbs.values()].map((db) => db.$disconnect()));
  dbs.clear();
}

/** Runs the CLI in-process through the stack: exit code, stdout, stderr and stdout as JSON. */
export const cli = (...argv: string[]) => runCli(argv, roleDb as never);

/** A new account (with the workflows add-on when asked) made by the CLI; answers its id. */
export async function newAccount(name: string, { workflows = false }: { workflows?: boolean } = {}): Promise<string> {
  const created = await cli('account', 'create', '--name', name, ...(workflows ? ['--workflows'] : []), '--json');
  expect(created.code).toBe(0);
  return created.json().id;
}

/**
 * This test file's stack (its services configured by `env`): started before its tests, stopped
 * after them (with the CLI's and the tests' database clients), and after each test, no command may
 * have opened a database. The stack is `current` once started.
 */
export function useCliStack(env: Parameters<typeof startCliStack>[0] = {}): { current: CliStack } {
  const stack = {} as { current: CliStack };
  beforeAll(async () => {
    stack.current = await startCliStack(env);
  });
  afterAll(async () => {
    await stack.current?.stop();
    await closeCliDbs();
    await closeTestDb();
  });
  afterEach(() => expect(opened).toEqual([]));
  return stack;
}
