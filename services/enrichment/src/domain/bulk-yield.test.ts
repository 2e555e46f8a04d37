// A bulk enrichment gives the event loop back between its items: items refused while
// parsing await no I/O, so without an explicit yield 100 of them would run as one unbroken
// stretch of microtasks, and no other request could be read or answered until the last.
import type { CreditKeeper } from './credits.js';
import { enrichBulk, type LookupDeps } from './lookups.js';
import type { PersonStore } from './person-store.js';

// Items refused before any query: the database and the credits must not be reached.
const unreachable = new Proxy(
  {},
  {
    get: (_, name) => {
      throw new Error(`not expected: ${String(name)}`);
    },
  },
);
const deps: LookupDeps = {
  persons: unreachable as PersonStore,
  credits: unreachable as CreditKeeper,
  defaultPhoneRegion: 'US',
  personKey: () => {
    throw new Error('not expected: personKey');
  },
};

/** Runs `work` and counts the event-loop turns (setImmediate callbacks) that happen meanwhile. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}

describe('enrichBulk and the event loop', () => {
  it('when 100 items with long fields are all refused before any query, then the loop turns between them and each is answered in order', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({
      email: `${'a'.repeat(2000)}@${'b.'.repeat(1000)}`,
      pronet_url: `pronet.example/${'/'.repeat(2000)}${i}`,
      phone: '+'.repeat(60),
    }));
    const { result, turns } = await turnsDuring(() => enrichBulk(deps, 'account', { items }));
    const body = JSON.parse(result.record) as { billed: number; results: { status: number }[] };
    expect(body.billed).toBe(0);
    expect(body.results.map((r) => r.status)).toEqual(Array(100).fill(400));
    // One turn between each two items at least (99), whatever the machine's speed.
    expect(turns).toBeGreaterThanOrEqual(99);
  });
});
