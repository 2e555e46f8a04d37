// The operator CLI `glimpse`: finds the command named by the first words, parses its options,
// runs it, and prints the result for a person, or as one JSON value with --json.
import { parseArgs } from 'node:util';
import { createDb, type Db } from '@glimpse/db/enrichment';
import { AppError } from '@glimpse/errors';
import { UsageError, type Command, type Io } from './command.js';
import { accountCommands } from './commands/accounts.js';
import { playbookCommands } from './commands/playbooks.js';
import { lookupCommands } from './commands/lookups.js';
import { importCommands } from './commands/imports.js';
import { networkTypeCommands } from './commands/network-types.js';
import { ipDataCommands } from './commands/ip-data.js';
import { siteCommands } from './commands/sites.js';
import { segmentCommands } from './commands/segments.js';
import { loadConfig, serviceDatabaseUrl, type CliService } from './config.js';

export const commands: Command[] = [
  ...accountCommands,
  ...siteCommands,
  ...segmentCommands,
  ...lookupCommands,
  ...playbookCommands,
  ...importCommands,
  ...ipDataCommands,
  ...networkTypeCommands,
];

function overview(): string {
  const width = Math.max(...commands.map((c) => c.words.join(' ').length));
  return [
    'glimpse: operate a Glimpse installation (accounts, credentials, sites, segments, playbooks, events, data)',
    '',
    'Usage: glimpse <command> [options]   (add --help to any command, --json for machine output)',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    "Environment: GLIMPSE_URL (or --url) and GLIMPSE_OPERATOR_TOKEN: every command goes through a gateway's operator API",
    "(/operator, the gateway's OPERATOR_TOKEN), held to the services' rules and configured caps; the imports ask it whether",
    '--account exists and send their file through it, and ip-datasets and network-types are done through it: no database',
    'is needed here. Without a gateway named (a Job in the cluster), these commands need the database and write through',
    "the owning service's own code, as its role: import persons, companies, visitors and demo the enrichment service's",
    'data with ENRICHMENT_DATABASE_URL (default: DATABASE_URL, postgresql://postgres@127.0.0.1:5432/glimpse, as',
    "glimpse_enrichment); import ip-ranges, import locations, ip-datasets and network-types the visitors service's with",
    "DATABASE_URL as glimpse_visitors (the role's password, if it has one, from PGPASSWORD).",
    'DEFAULT_PHONE_REGION (US): the region of imported phone numbers written without a country code.',
  ].join('\n');
}

function findCommand(args: string[]): Command | undefined {
  return commands.find((c) => c.words.every((w, i) => args[i] === w));
}

export async function run(argv: string[], io: Io, dbFactory?: (service: CliService) => Db): Promise<number> {
  const command = findCommand(argv);
  if (!command) {
    const asked = argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help';
    (asked ? io.stdout : io.stderr)(overview() + '\n');
    if (!asked) io.stderr(`\nunknown command: ${argv.filter((a) => !a.startsWith('-')).join(' ')}\n`);
    return asked ? 0 : 2;
  }
  const dbs = new Map<CliService, Db>();
  try {
    const { values, positionals } = parseArgs({
      args: argv.slice(command.words.length),
      options: { ...command.options, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      io.stdout(`${command.summary}\n\nUsage: ${command.usage}\n`);
      return 0;
    }
    const result = await command.run({
      values,
      positionals,
      io,
      db: (service) => {
        let db = dbs.get(service);
        if (!db) {
          db = dbFactory ? dbFactory(service) : createDb({ databaseUrl: serviceDatabaseUrl(loadConfig(), service), poolSize: 2 });
          dbs.set(service, db);
        }
        return db;
      },
    });
    io.stdout((values.json || !command.human ? JSON.stringify(result, null, values.json ? 0 : 2) : command.human(result)) + '\n');
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`${(err as Error).message}\nUsage: ${command.usage}\n`);
      return 2;
    }
    if (err instanceof AppError) {
      io.stderr(`error: ${err.code}: ${err.message}\n`);
      return 1;
    }
    io.stderr(`error: ${(err as Error).message}\n`);
    return 1;
  } finally {
    if (!dbFactory) await Promise.all([...dbs.values()].map((db) => db.$disconnect()));
  }
}

export function main(): void {
  const io: Io = { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) };
  // run() answers an exit code for every error of a command; what is left (a disconnect that
  // failed after the command's answer) is reported the same way rather than as an unhandled rejection.
  run(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      io.stderr(`error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
