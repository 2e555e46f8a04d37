/** A dead-letter reason made of names and codes only: a driver's message can quote the values. */
export function failureReason(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const x = e as {
      name?: unknown;
      code?: unknown;
      meta?: { code?: unknown; driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown; code?: unknown } } };
      cause?: unknown;
    };
    if (typeof x.name === 'string' && x.name !== 'Error') parts.push(x.name);
    if (typeof x.code === 'string' || typeof x.code === 'number') parts.push(String(x.code));
    const adapter = x.meta?.driverAdapterError?.cause;
    const sqlState = adapter?.originalCode ?? adapter?.code ?? x.meta?.code;
    if (typeof adapter?.kind === 'string') parts.push(adapter.kind);
    if (typeof sqlState === 'string') parts.push(`sqlstate ${sqlState}`);
    e = x.cause;
  }
  const reason = [...new Set(parts)].filter((p) => /^[A-Za-z0-9 _.-]{1,60}$/.test(p)).join(' ');
  return `apply failed: ${reason || 'unknown error'}`;
}
