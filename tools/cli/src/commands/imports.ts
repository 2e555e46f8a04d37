// import persons / import companies / import visitors (NDJSON files, streamed; through the operator API
// when one is named) and demo (a synthetic dataset).
import fs from 'node:fs';
import readline from 'node:readline';
import { createHash } from 'node:crypto';
import { generatePerson, importCompanies, importPersons, importVisitors, type ImportReport } from '@glimpse/enrichment';
import { AppError } from '@glimpse/errors';
import { required, UsageError, type Command, type CommandContext } from '../command.js';
import { loadConfig, serviceDatabaseUrl } from '../config.js';
import { existingAccountId, urlOption } from '../operator-command.js';
import { importApi, uploadNdjson } from './import-upload.js';

function ndjsonFile(file: string | undefined): string {
  if (!file) throw new UsageError('name the NDJSON file to import');
  if (!fs.existsSync(file)) throw new AppError('not_found', `no such file: ${file}`);
  return file;
}

function fileLines(file: string | undefined): AsyncIterable<string> {
  return readline.createInterface({ input: fs.createReadStream(ndjsonFile(file)), crlfDelay: Infinity });
}

const THROUGH =
  "Through a gateway's operator API when --url or GLIMPSE_URL names one (GLIMPSE_OPERATOR_TOKEN): the file is\nsent to it in parts and written by the owning service; this machine needs no database. Without one,\nthe service's import code writes the database itself, as its role (the way a Job in the cluster runs it).";

/** Progress on stderr, at most about once a second, so a long import shows it is moving. */
function progress(io: CommandContext['io'], what: string) {
  const started = Date.now();
  let last = 0;
  return (r: ImportReport, force = false) => {
    const now = Date.now();
    if (!force && now - last < 1000) return;
    last = now;
    const rate = Math.round((r.imported / Math.max(now - started, 1)) * 1000);
    io.stderr(`${what}: ${r.imported} imported, ${r.skipped} skipped (${rate}/s)\n`);
  };
}

/** Runs one import with its progress on stderr, and a last progress line when done; the report is the command's result. */
export async function withProgress<R extends ImportReport>(
  io: CommandContext['io'],
  what: string,
  run: (onProgress: (r: ImportReport) => void) => Promise<R>,
): Promise<R> {
  const show = progress(io, what);
  const report = await run(show);
  show(report, true);
  return report;
}

export function summary(r: unknown): string {
  const report = r as ImportReport;
  const lines = [`imported ${report.imported}, skipped ${report.skipped} of ${report.read} lines`];
  for (const e of report.errors.slice(0, 20)) lines.push(`  line ${e.line}: ${e.message}`);
  if (report.errors.length > 20) lines.push(`  … ${report.skipped - 20} more (use --json for the list)`);
  return lines.join('\n');
}

const regionOption = { region: { type: 'string' as const } };
const region = (values: CommandContext['values']) => (typeof values.region === 'string' ? values.region : loadConfig().DEFAULT_PHONE_REGION);

async function* demoLines(count: number, seed: number): AsyncIterable<string> {
  for (let i = 0; i < count; i++) yield JSON.stringify(generatePerson(i, seed));
}

/** A deterministic visitor id for the i-th demo person of an account. */
export function demoVisitorId(accountId: string, index: number): string {
  return createHash('sha256').update(`${accountId}:${index}`).digest('hex').slice(0, 24);
}

async function* demoVisitorLines(accountId: string, count: number, seed: number): AsyncIterable<string> {
  for (let i = 0; i < count; i++) {
    const person = generatePerson(i, seed);
    const email = person.profile.email ?? person.traits.work_email;
    yield JSON.stringify({ visitorId: demoVisitorId(accountId, i), email, page_views: 1 + (i % 17), last_seen_at: '2026-11-20T10:00:00.000Z' });
  }
}

export const importCommands: Command[] = [
  {
    words: ['import', 'persons'],
    summary: 'import enriched person records from an NDJSON file (one api.md §2.3 record a line), through COPY',
    usage: `glimpse import persons FILE.ndjson [--region US] [--url URL] [--json]\n\n${THROUGH}`,
    options: { ...regionOption, ...urlOption },
    run: ({ positionals, values, io }) => {
      const api = importApi(values);
      if (api) return uploadNdjson(api, `/operator/imports/persons?region=${encodeURIComponent(region(values))}`, ndjsonFile(positionals[0]), io, 'persons');
      return withProgress(io, 'persons', (onProgress) =>
        importPersons(fileLines(positionals[0]), {
          databaseUrl: serviceDatabaseUrl(loadConfig(), 'enrichment'),
          defaultPhoneRegion: region(values),
          onProgress,
        }),
      );
    },
    human: summary,
  },
  {
    words: ['import', 'companies'],
    summary:
      'import companies (firmographics) from an NDJSON file, one {"domain", "name", "industry", "size", "employees", "founded", "location", "profile_url"} a line',
    usage: `glimpse import companies FILE.ndjson [--url URL] [--json]\n\nA line's domain is required (lower-cased, www. dropped); it replaces what imported persons said of\nthe company; a later line of a domain replaces an earlier one.\n${THROUGH}`,
    options: { ...urlOption },
    run: ({ positionals, values, db, io }) => {
      const api = importApi(values);
      if (api) return uploadNdjson(api, '/operator/imports/companies', ndjsonFile(positionals[0]), io, 'companies');
      return withProgress(io, 'companies', (onProgress) => importCompanies(fileLines(positionals[0]), { db: db('enrichment'), onProgress }));
    },
    human: summary,
  },
  {
    words: ['import', 'visitors'],
    summary: "import an account's visitors from an NDJSON file ({visitorId, email, …page views})",
    usage: `glimpse import visitors --account ID FILE.ndjson [--url URL] [--json]\n\nThe account is checked through a gateway's operator API (--url or GLIMPSE_URL, GLIMPSE_OPERATOR_TOKEN).\n${THROUGH}`,
    options: { account: { type: 'string' }, ...urlOption },
    async run({ positionals, values, db, io }) {
      const accountId = await existingAccountId(values);
      const file = ndjsonFile(positionals[0]);
      const api = importApi(values);
      if (api) return uploadNdjson(api, `/operator/accounts/${accountId}/imports/visitors`, file, io, 'visitors');
      return withProgress(io, 'visitors', (onProgress) =>
        importVisitors(fileLines(file), accountId, { db: db('enrichment'), defaultPhoneRegion: 'US', onProgress }),
      );
    },
    human: summary,
  },
  {
    words: ['demo'],
    summary: 'generate and import a deterministic synthetic dataset (and visitors for an account)',
    usage:
      "glimpse demo --persons N [--seed S] [--account ID [--url URL]] [--json]\n\nWith --account, the account is checked through a gateway's operator API (--url or GLIMPSE_URL,\nGLIMPSE_OPERATOR_TOKEN). The data is written by the enrichment service's import, as its role.",
    options: { persons: { type: 'string' }, seed: { type: 'string' }, account: { type: 'string' }, ...urlOption },
    async run({ values, db, io }) {
      const count = Number(required(values, 'persons'));
      const seed = Number(values.seed ?? 1);
      if (!Number.isInteger(count) || count < 1) throw new UsageError('--persons takes a whole number ≥ 1');
      if (!Number.isInteger(seed)) throw new UsageError('--seed takes a whole number');
      // Checked first, so a mistyped account fails before any person is written.
      const accountId = values.account === undefined ? undefined : await existingAccountId(values);
      const persons = await importPersons(demoLines(count, seed), {
        databaseUrl: serviceDatabaseUrl(loadConfig(), 'enrichment'),
        defaultPhoneRegion: 'US',
        onProgress: progress(io, 'persons'),
      });
      const visitors = accountId
        ? await importVisitors(demoVisitorLines(accountId, count, seed), accountId, { db: db('enrichment'), defaultPhoneRegion: 'US', batchSize: 1000 })
        : undefined;
      return { persons: persons.imported, visitors: visitors?.imported ?? 0, seed };
    },
    human: (r) => {
      const { persons, visitors, seed } = r as { persons: number; visitors: number; seed: number };
      return `demo data (seed ${seed}): ${persons} persons, ${visitors} visitors imported`;
    },
  },
];
