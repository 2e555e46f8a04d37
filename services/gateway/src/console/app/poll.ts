// Runs `task` at once and then every `intervalMs()` while `owner` is on the page, paused while the tab
// is hidden (resumed at once when it shows again). `task` answering false stops it for good.
import { fail } from './messages';
import { isSignedIn } from './session';

export interface Poller {
  stop: () => void;
  /** Runs the task now (unless it is running or paused) and restarts the interval from there. */
  now: () => Promise<void> | undefined;
}

export function poll(owner: Element, task: () => Promise<unknown>, intervalMs: () => number): Poller {
  let timer: number | null = null;
  let running = false;
  let stopped = false;
  const cancel = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  const onVisibility = () => {
    if (document.hidden) cancel();
    else if (timer === null && !running) void tick();
  };
  const stop = () => {
    stopped = true;
    cancel();
    document.removeEventListener('visibilitychange', onVisibility);
  };
  async function tick(): Promise<void> {
    timer = null;
    if (stopped || !owner.isConnected || !isSignedIn()) return stop();
    if (document.hidden) return;
    running = true;
    try {
      if ((await task()) === false) return stop();
    } catch (err) {
      if (owner.isConnected) fail(err);
    } finally {
      running = false;
    }
    if (!stopped && owner.isConnected && !document.hidden) timer = setTimeout(tick, intervalMs());
  }
  document.addEventListener('visibilitychange', onVisibility);
  timer = setTimeout(tick, 0); // once the caller has put `owner` on the page
  return { stop, now: () => (timer !== null ? (cancel(), tick()) : undefined) };
}
