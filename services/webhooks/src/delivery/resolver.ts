// Name resolution for webhook targets without libuv's thread pool: `dns.lookup` (getaddrinfo) runs
// on its four threads, shared with file and crypto work, so a few slow or unanswering name servers
// would stall every lookup and more. dns.promises.Resolver asks the name servers itself (c-ares,
// on the event loop) with a bounded time: at most `timeoutMs` per name, whatever the servers do.
//
// It reads /etc/resolv.conf's servers (or WEBHOOKS_DNS_SERVERS) but neither /etc/hosts nor the
// search domains: a target is a fully qualified public name, so short cluster names never
// resolve here (one more thing an SSRF attempt cannot reach). `localhost` and `*.localhost` are
// loopback by definition (RFC 6761 §6.3) and answered without asking anyone.
import { promises as dns } from 'node:dns';
import net from 'node:net';

export interface HostResolver {
  /** Every IPv4 and IPv6 address of the name (an IP literal is its own answer). */
  resolve(hostname: string): Promise<string[]>;
}

export class ResolveError extends Error {
  constructor(
    message: string,
    readonly code: 'ENOTFOUND' | 'ETIMEOUT',
  ) {
    super(message);
    this.name = 'ResolveError';
  }
}

const LOOPBACK = ['127.0.0.1', '::1'];
const NO_ANSWER = new Set(['ENODATA', 'ENOTFOUND', 'NOTFOUND', 'ENONAME', 'EBADNAME', 'EBADQUERY', 'EFORMERR']);

export interface ResolverOptions {
  /** The longest one name may take, both families together. */
  timeoutMs: number;
  /** Name servers (`host` or `host:port`); the system's (resolv.conf) when empty. */
  servers?: string[];
}

export function createResolver({ timeoutMs, servers = [] }: ResolverOptions): HostResolver {
  // c-ares backs off between tries (here about 1× then 2× the per-try time), so two tries of a
  // third of the budget fit in it; the race below makes the bound exact whatever c-ares does.
  const resolver = new dns.Resolver({ timeout: Math.max(50, Math.floor(timeoutMs / 3)), tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);

  async function family(query: Promise<string[]>): Promise<string[]> {
    try {
      return await query;
    } catch (err) {
      if (NO_ANSWER.has((err as { code?: string }).code ?? '')) return [];
      throw err;
    }
  }

  return {
    async resolve(hostname) {
      const name = hostname
        .replace(/^\[(.*)\]$/, '$1')
        .replace(/\.$/, '')
        .toLowerCase();
      if (net.isIP(name)) return [name];
      if (name === 'localhost' || name.endsWith('.localhost')) return [...LOOPBACK];
      // Both families at once; at the deadline, what has arrived is the answer (a server that
      // never answers AAAA does not hide the A records it gave).
      const results: (string[] | Error | undefined)[] = [undefined, undefined];
      const queries = [family(resolver.resolve4(name)), family(resolver.resolve6(name))].map((q, i) =>
        q.then(
          (list) => {
            results[i] = list;
          },
          (err: Error) => {
            results[i] = err;
          },
        ),
      );
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(queries),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      const addresses = results.flatMap((r) => (Array.isArray(r) ? r : []));
      if (addresses.length > 0) return addresses;
      if (results.some((r) => r === undefined || (r as { code?: string }).code === 'ETIMEOUT')) {
        throw new ResolveError(`no answer for the name within ${timeoutMs} ms`, 'ETIMEOUT');
      }
      const failed = results.find((r): r is Error => r instanceof Error);
      throw new ResolveError(
        failed ? `the name could not be resolved (${(failed as { code?: string }).code ?? 'error'})` : 'the name has no address',
        'ENOTFOUND',
      );
    },
  };
}
