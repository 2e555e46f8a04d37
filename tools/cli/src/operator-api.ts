// The CLI's way to the operator API (a gateway's /operator): the front door, with the operator
// token, instead of the gateway's database. The token comes from the environment only
// (GLIMPSE_OPERATOR_TOKEN): a flag would show it in the process list and the shell's history.
import { UsageError } from './command.js';
import type { CliConfig } from './config.js';

/** What the operator API answers for an account. */
export interface OperatorAccount {
  id: string;
  name: string;
  addons: { workflows: boolean };
}

export interface OperatorApi {
  call(method: 'GET' | 'PUT' | 'DELETE', path: string): Promise<unknown>;
}

const TIMEOUT_MS = 10_000;

/** The operator API as configured (GLIMPSE_URL or --url, and GLIMPSE_OPERATOR_TOKEN); a usage error saying what is missing. */
export function operatorApi(config: Pick<CliConfig, 'GLIMPSE_URL' | 'GLIMPSE_OPERATOR_TOKEN'>, url?: string): OperatorApi {
  const base = url ?? config.GLIMPSE_URL;
  const token = config.GLIMPSE_OPERATOR_TOKEN;
  const missing = [base ? null : 'GLIMPSE_URL (or --url)', token ? null : 'GLIMPSE_OPERATOR_TOKEN'].filter(Boolean);
  if (missing.length > 0) throw new UsageError(`this command goes through the gateway's operator API: set ${missing.join(' and ')}`);
  if (!/^https?:\/\//.test(base!)) throw new UsageError(`--url: ${base} is not an http(s) URL`);
  const root = base!.endsWith('/') ? base!.slice(0, -1) : base!;
  return {
    async call(method, path) {
      let res: Response;
      try {
        res = await fetch(`${root}${path}`, { method, headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      } catch (err) {
        const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
        throw new Error(`the operator API at ${root} did not answer: ${cause}`, { cause: err });
      }
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (res.ok && body !== undefined) return body;
      const { error, message } = (body ?? {}) as { error?: unknown; message?: unknown };
      if (typeof error !== 'string') throw new Error(`the operator API at ${root} answered HTTP ${res.status}`);
      // The gateway's {error, message}, printed as the CLI prints its own errors. A gateway without
      // OPERATOR_TOKEN has no /operator: its 404 names no route, not the account.
      const said = typeof message === 'string' ? message : `HTTP ${res.status}`;
      const hint = error === 'not_found' && said.startsWith('no route') ? ' (that gateway has no operator API: is its OPERATOR_TOKEN set?)' : '';
      throw new Error(`${error}: ${said}${hint}`);
    },
  };
}
