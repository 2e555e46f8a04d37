// prisma/schema.prisma is the one source of the schema: Prisma's own engine (npm run migration:check)
// must find nothing between the database our migrations build and that file.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { childPath, testDatabaseUrl } from '../../../test/config';
import { migrate } from './migrate';

const root = path.resolve(__dirname, '../../..');
const schemaPath = path.join(root, 'prisma', 'schema.prisma');

function migrationCheck(schema?: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const args = [path.join(root, 'scripts', 'prisma', 'migration.mjs'), '--check', ...(schema ? ['--schema', schema] : [])];
    execFile(process.execPath, args, { cwd: root, env: { PATH: childPath(), DATABASE_URL: testDatabaseUrl() }, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('prisma/schema.prisma and prisma/migrations', () => {
  it("when the migrations are applied to a new database, then Prisma's engine finds nothing left to do for the schema", async () => {
    const { code, output } = await migrationCheck();
    expect(output).toMatch(/they produce exactly prisma\/schema\.prisma/);
    expect(code).toBe(0);
  });

  it('when the schema has a change no migration makes, then the check fails and prints the missing SQL', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'glimpse-schema-'));
    try {
      const changed = path.join(dir, 'schema.prisma');
      const schema = await readFile(schemaPath, 'utf8');
      await writeFile(changed, schema.replace(/(model Playbook \{\n)/, '$1  colour String?\n'));
      const { code, output } = await migrationCheck(changed);
      expect(code).toBe(1);
      expect(output).toMatch(/ALTER TABLE "playbook"\."playbooks" ADD COLUMN\s+"colour" TEXT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('when the migrations are applied, then the CHECK constraints the schema cannot express are there', async () => {
    const databaseUrl = testDatabaseUrl();
    await migrate({ databaseUrl, migrationsDir: path.join(root, 'prisma', 'migrations') });
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(`SELECT conname AS name FROM pg_constraint WHERE contype = 'c' ORDER BY 1`);
      expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['enrollments_status_check', 'playbook_effects_action_check']));
    } finally {
      await client.end();
    }
  });
});
