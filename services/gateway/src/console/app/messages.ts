// The page's two live regions (#error, an alert; #status, polite), and action(): how every
// button and form reports what happened.
import { addonNotice } from './addon-notice';
import { ApiError } from './api';
import { $ } from './dom';
import { isSignedIn, signOut } from './session';

export function clearMessages(): void {
  $('error').textContent = '';
  $('status').textContent = '';
}

export const say = (text: string): void => {
  $('status').textContent = text;
};

export function fail(err: unknown): void {
  if (err instanceof ApiError && err.code === 'addon_required') addonNotice();
  // A bug in this script: its stack for whoever debugs, never its message (it could quote data).
  if (!(err instanceof ApiError))
    console.error(
      `Console error (${err instanceof Error ? err.name : typeof err})`,
      String(err instanceof Error ? (err.stack ?? '') : '')
        .split('\n')
        .slice(1)
        .join('\n'),
    );
  const message = err instanceof ApiError ? err.message : 'Something went wrong in the console; reload the page and try again.';
  if (err instanceof ApiError && err.status === 401 && isSignedIn()) {
    signOut();
    $('error').textContent = `Signed out: ${message}`;
    return;
  }
  $('error').textContent = message;
}

// Wraps a handler: clears old messages, ignores repeat clicks while busy, reports any error.
// The button is marked aria-disabled rather than disabled so keyboard focus stays on it.
export function action(fn: (event?: Event) => unknown): (event?: Event) => Promise<void> {
  return async (event) => {
    event?.preventDefault();
    const submitter = event instanceof SubmitEvent ? event.submitter : null;
    const button = submitter ?? (event?.currentTarget instanceof HTMLButtonElement ? event.currentTarget : null);
    if (button?.getAttribute('aria-disabled') === 'true') return;
    clearMessages();
    button?.setAttribute('aria-disabled', 'true');
    try {
      await fn(event);
    } catch (err) {
      fail(err);
    } finally {
      button?.removeAttribute('aria-disabled');
    }
  };
}
