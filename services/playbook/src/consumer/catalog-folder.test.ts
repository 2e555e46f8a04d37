import { catalogFolder } from './catalog-folder';

const logger = { warn: jest.fn() } as unknown as Parameters<typeof catalogFolder>[1];

/** A fold the test finishes by hand. */
function manualFold() {
  const pending: (() => void)[] = [];
  let calls = 0;
  const fold = () => {
    calls++;
    return new Promise<void>((resolve) => pending.push(resolve));
  };
  const ticks = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  /** Finishes the oldest fold under way, and lets what follows it run. */
  const settle = async () => {
    await ticks();
    pending.shift()?.();
    await ticks();
  };
  return { fold, settle, calls: () => calls };
}

describe('catalogFolder', () => {
  it('when kicked while a fold runs, then kicks coalesce into one more fold after it', async () => {
    const f = manualFold();
    const folder = catalogFolder(f.fold, logger, { everyMs: 60_000 });
    folder.kick();
    folder.kick();
    folder.kick();
    expect(f.calls()).toBe(1);
    await f.settle();
    expect(f.calls()).toBe(2);
    await f.settle();
    expect(f.calls()).toBe(2);
    const stopping = folder.stop();
    await f.settle();
    await stopping;
  });

  it('when a fold fails, then it is logged and the next kick folds again', async () => {
    const warn = jest.fn();
    let calls = 0;
    const folder = catalogFolder(() => (++calls === 1 ? Promise.reject(new Error('lock timeout')) : Promise.resolve()), { warn } as never, { everyMs: 60_000 });
    folder.kick();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(warn).toHaveBeenCalledWith({ err: 'lock timeout' }, 'catalog fold failed; the next one retries');
    folder.kick();
    expect(calls).toBe(2);
    await folder.stop();
  });

  it('when stopped, then it waits for the fold under way and folds once more (what this process applied last)', async () => {
    const f = manualFold();
    const folder = catalogFolder(f.fold, logger, { everyMs: 60_000 });
    folder.kick();
    let stopped = false;
    const stopping = folder.stop().then(() => (stopped = true));
    await f.settle();
    expect(f.calls()).toBe(2);
    expect(stopped).toBe(false);
    await f.settle();
    await stopping;
    expect(stopped).toBe(true);
  });

  it('when time passes, then it folds every everyMs without a kick', async () => {
    jest.useFakeTimers();
    try {
      let calls = 0;
      const folder = catalogFolder(async () => void calls++, logger, { everyMs: 1000 });
      await jest.advanceTimersByTimeAsync(3000);
      expect(calls).toBe(3);
      await folder.stop();
    } finally {
      jest.useRealTimers();
    }
  });
});
