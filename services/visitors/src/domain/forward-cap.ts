// The events tag traffic can push into playbooks (tracks and page-rule matches forwarded to
// events.inbound), capped per account and window (a minute by default), on this replica's own
// counts: past the cap a forward is not sent, and the caller counts it. Per replica on purpose (no
// shared store on this path): with R replicas an account gets at most R times the cap.
export interface ForwardCap {
  /** The forwards within their account's cap, in order; the rest are left out. */
  admit<T extends { accountId: string }>(forwards: readonly T[]): T[];
}

export function createForwardCap({ perWindow, windowMs = 60_000, now = Date.now }: { perWindow: number; windowMs?: number; now?: () => number }): ForwardCap {
  let window = -1;
  // Only this window's accounts: cleared when it ends, so the map stays bounded.
  const counts = new Map<string, number>();
  return {
    admit(forwards) {
      const current = Math.floor(now() / windowMs);
      if (current !== window) {
        window = current;
        counts.clear();
      }
      return forwards.filter((f) => {
        const n = (counts.get(f.accountId) ?? 0) + 1;
        counts.set(f.accountId, n);
        return n <= perWindow;
      });
    },
  };
}
