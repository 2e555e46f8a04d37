// The send timeout of every unsettled send, with one timer: all sends get the same time, so they
// expire in the order they came, and a timer for the oldest watches them all.

export interface Expiring {
  deadline: number;
  settled: boolean;
}

export interface ExpiryWatch<T extends Expiring> {
  /** Watches a send until it is settled or its deadline passes (then `expire(send)` is called). */
  watch(send: T): void;
  /** Lets go of the settled sends at the head; no timer is left running once none is watched. */
  advance(): void;
}

export function createExpiryWatch<T extends Expiring>(timeoutMs: number, expire: (send: T) => void): ExpiryWatch<T> {
  // Oldest first, with settled ones until the head moves past them.
  let watched: T[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | undefined;

  function advance(): void {
    while (head < watched.length && watched[head]!.settled) head += 1;
    if (head === watched.length) {
      watched = [];
      head = 0;
      clearTimeout(timer);
      timer = undefined;
    } else if (head >= 1024 && head * 2 >= watched.length) {
      // Drop the settled head now and then, not on every send.
      watched = watched.slice(head);
      head = 0;
    }
  }

  /** Fails the sends whose time is up (the oldest first), then waits for the next one's. */
  function expireDue(): void {
    timer = undefined;
    const now = Date.now();
    for (; head < watched.length && (watched[head]!.settled || watched[head]!.deadline <= now); head += 1) {
      if (!watched[head]!.settled) expire(watched[head]!);
    }
    advance();
    if (head < watched.length) timer = setTimeout(expireDue, Math.max(0, watched[head]!.deadline - now));
  }

  return {
    watch(send) {
      watched.push(send);
      timer ??= setTimeout(expireDue, timeoutMs);
    },
    advance,
  };
}
