// Sign in: the key is checked with one API call before the console opens; a refusal keeps the
// person on this form with the API's message.
import { api, invalid } from '../api';
import { field, pageHeading } from '../components';
import { h } from '../dom';
import { action, say } from '../messages';
import { useKey } from '../session';

/** `signedIn` shows the console once the key is accepted (the router's, so this page imports no router). */
export function signInPage(root: HTMLElement, signedIn: () => void): void {
  const input = h('input', { type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const submit = action(async () => {
    const key = input.value.trim();
    if (!key) throw invalid('Enter a management API key.');
    useKey(key);
    try {
      await api('GET', 'event-tokens');
    } catch (err) {
      useKey(null);
      input.focus();
      throw err;
    }
    input.value = '';
    signedIn();
    say('Signed in.');
  });
  root.append(
    h(
      'form',
      { class: 'sign-in', onsubmit: submit },
      pageHeading('Sign in', 'Sign in with an API key that has the account:manage scope.'),
      field('api-key', 'Management API key', input, 'Kept in this tab’s memory only: reloading or closing the page signs you out.'),
      h('button', { type: 'submit' }, 'Sign in'),
    ),
  );
}
