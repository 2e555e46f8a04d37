// What a CLI command is: its words, help text, options (node:util parseArgs) and a run function
// that returns the value to print (as JSON with --json, else through `human`).
import type { ParseArgsConfig } from 'node:util';
import type { Db } from '@glimpse/db/enrichment';
import type { CliService } from './config.js';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface CommandContext {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** A connection to one service's schema, as that service's role (opened on first use). */
  db(service: CliService): Db;
  io: Io;
}

export interface Command {
  words: [string, string] | [string];
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(ctx: CommandContext): Promise<unknown>;
  human?(result: unknown): string;
}

export class UsageError extends Error {}

export function required(values: CommandContext['values'], name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

/** Renders rows as an aligned text table. */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') || '-' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}
