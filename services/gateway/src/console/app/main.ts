// The Glimpse web console: one page with hash routes over the management API (/account/…),
// bundled by esbuild into the one console.js that index.html loads (src/http/console-bundle.ts).
// The key the person signs in with lives in session.ts's memory only — never in storage, cookies
// or the URL — so reloading signs out. A created token or key is rendered once and removed from
// the DOM when dismissed or when <main> is replaced (another page, sign-out). All data goes in
// as text nodes (dom.ts).
import { $ } from './dom';
import { clearMessages, say } from './messages';
import { focusHeading, render } from './router';
import { isSignedIn, onSignOut, signOut } from './session';

onSignOut(render);

window.addEventListener('hashchange', () => {
  if (location.hash && !location.hash.startsWith('#/')) return; // the skip link, not a page
  clearMessages();
  render();
  focusHeading();
});
$('sign-out').addEventListener('click', () => {
  clearMessages();
  signOut();
  say('Signed out.');
  focusHeading();
});
// A page restored from the back/forward cache would still hold the key: start signed out.
window.addEventListener('pageshow', (event) => {
  if (event.persisted && isSignedIn()) signOut();
});

render();
