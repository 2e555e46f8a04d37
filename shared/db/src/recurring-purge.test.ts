import { scheduleRecurringPurge, type PurgeLogger } from './recurring-purge';

function recordingLogger() {
  const lines: Array<{ level: string; details: object; message: string }> = [];
  const logger: PurgeLogger = {
    info: (details, message) => lines.push({ level: 'info', details, message }),
    warn: (details, message) => lines.push({ level: 'warn', details, message }),
  };
  return { logger, lines };
}

const messages = { deletedMessage: 'old rows deleted', failedMessage: 'purge failed; next round' };

describe('scheduleRecurringPurge', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs first within 30 s, then every interval, and logs only rounds that deleted something', async () => {
    const { logger, lines } = recordingLogger();
    const counts = [3, 0, 2];
    const purge = jest.fn(async () => counts.shift() ?? 0);
    const schedule = scheduleRecurringPurge({ purge, intervalMs: 60_000, logger, details: { retentionHours: 48 }, ...messages });

    await jest.advanceTimersByTimeAsync(29_999);
    expect(purge).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(purge).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(90_000); // intervals at 60 s and 120 s
    expect(purge).toHaveBeenCalledTimes(3);
    expect(lines).toEqual([
      { level: 'info', details: { deleted: 3, retentionHours: 48 }, message: 'old rows deleted' },
      { level: 'info', details: { deleted: 2, retentionHours: 48 }, message: 'old rows deleted' },
    ]);
    schedule.stop();
  });

  it('logs a failure as a short message at warn and runs again next round', async () => {
    const { logger, lines } = recordingLogger();
    const purge = jest
      .fn()
      .mockRejectedValueOnce(new Error(`x`.repeat(500)))
      .mockResolvedValue(1);
    const schedule = scheduleRecurringPurge({ purge, intervalMs: 1_000, logger, details: {}, ...messages });

    await jest.advanceTimersByTimeAsync(1_000); // the first round and the first interval
    await jest.advanceTimersByTimeAsync(1_000);
    expect(lines[0]).toEqual({ level: 'warn', details: { err: 'x'.repeat(200) }, message: 'purge failed; next round' });
    expect(lines.slice(1).every((l) => l.level === 'info')).toBe(true);
    schedule.stop();
  });

  it('stops: no round after stop()', async () => {
    const { logger } = recordingLogger();
    const purge = jest.fn(async () => 0);
    scheduleRecurringPurge({ purge, intervalMs: 1_000, logger, details: {}, ...messages }).stop();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(purge).not.toHaveBeenCalled();
  });
});
