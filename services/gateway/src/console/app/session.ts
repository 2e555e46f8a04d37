// The key the person signed in with. It lives in this module's memory only — never in storage,
// cookies or the URL — so reloading the page signs out.
let apiKey: string | null = null;

/** What the router shows once signed out; registered by it, so this module imports no page. */
let showSignedOut: () => void = () => undefined;

export const currentKey = (): string | null => apiKey;
export const isSignedIn = (): boolean => apiKey !== null;

export function useKey(key: string | null): void {
  apiKey = key;
}

export function onSignOut(show: () => void): void {
  showSignedOut = show;
}

export function signOut(): void {
  apiKey = null;
  showSignedOut();
}
