// Email links: a signed, expiring link parameter for one recipient of a campaign, which
// identifies them (method "email link") when they open it on a site with the tag.
import { api, invalid } from '../api';
import type { LinkToken } from '../api-types';
import { copyButton, field, pageHeading } from '../components';
import { h } from '../dom';
import { when } from '../format';
import { action, say } from '../messages';

const MAX_DAYS = 90;

/** The form's inputs. */
interface LinkInputs {
  email: HTMLInputElement;
  days: HTMLInputElement;
  link: HTMLInputElement;
}

export function emailLinksPage(root: HTMLElement): void {
  const slot = h('div');
  root.append(
    ...pageHeading(
      'Email links',
      'A link parameter for one recipient of a campaign: it is opaque and signed, bound to your account, expires, and never contains the email in clear.',
    ),
    linkForm(slot),
    slot,
    h('p', {}, revokeButton('Revoke all email links', 'link-tokens', 'Every email link made so far is revoked; links made from now on work as usual.')),
  );
}

// The form that makes a link parameter; what it makes is shown in the slot.
function linkForm(slot: HTMLElement): HTMLFormElement {
  const inputs: LinkInputs = {
    email: h('input', { type: 'email', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'ann@example.com' }),
    days: h('input', { type: 'number', required: true, min: '1', max: String(MAX_DAYS), step: '1', value: '30' }),
    link: h('input', { type: 'url', autocomplete: 'off', spellcheck: 'false', placeholder: 'https://www.example.com/pricing' }),
  };
  return h(
    'form',
    { class: 'site-form', onsubmit: action(() => createLink(inputs, slot)) },
    field('link-email', 'Recipient’s email', inputs.email),
    field('link-days', 'Valid for (days)', inputs.days, '1 to 90.'),
    field('link-url', 'Campaign link (optional)', inputs.link, 'A page of one of your sites; the parameter is appended to it.'),
    h('button', { type: 'submit' }, 'Create link parameter'),
  );
}

// The days typed, a whole number from 1 to MAX_DAYS; an ApiError otherwise.
function validDays(days: HTMLInputElement): number {
  const ttl = Number(days.value);
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_DAYS) {
    days.setAttribute('aria-invalid', 'true');
    days.focus();
    throw invalid('Valid for: a whole number of days from 1 to 90.');
  }
  days.removeAttribute('aria-invalid');
  return ttl;
}

// The campaign link as typed, or null when empty; an ApiError when it is not http(s).
function campaignLink(link: HTMLInputElement): URL | null {
  if (!link.value.trim()) return null;
  try {
    const url = new URL(link.value.trim());
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
    link.removeAttribute('aria-invalid');
    return url;
  } catch {
    link.setAttribute('aria-invalid', 'true');
    link.focus();
    throw invalid('The campaign link must be an http or https address.');
  }
}

// The form's submit: the token made, shown in the slot, which takes the focus.
async function createLink(inputs: LinkInputs, slot: HTMLElement): Promise<void> {
  const ttl = validDays(inputs.days);
  const url = campaignLink(inputs.link);
  const token = await api<LinkToken>('POST', 'link-tokens', { email: inputs.email.value.trim(), ttl_days: ttl });
  const result = linkResult(token, url);
  slot.replaceChildren(result);
  result.focus();
}

// The parameter, and the full link when a campaign link was given, each with its copy button; a revoke button.
function linkResult({ token, id, expiresAt }: LinkToken, url: URL | null): HTMLElement {
  const param = h('code', { class: 'secret-value', id: 'link-param' }, `?gl=${token}`);
  let full: HTMLElement | null = null;
  if (url) {
    url.searchParams.set('gl', token);
    full = h('code', { class: 'secret-value', id: 'link-full' }, url.href);
  }
  return h(
    'section',
    { class: 'secret-box', 'aria-labelledby': 'link-title', tabindex: '-1' },
    h('h2', { id: 'link-title' }, 'Link parameter'),
    h(
      'p',
      {},
      'Append this to the campaign link (use & instead of ? if the link has a query already). A visitor who opens it is identified with method “email link”; the tag removes it from the address bar. It expires ',
      when(expiresAt),
      '.',
    ),
    h('p', {}, param),
    h('div', { class: 'actions' }, copyButton('Copy parameter', param)),
    full && [h('p', {}, full), h('div', { class: 'actions' }, copyButton('Copy link', full))],
    h(
      'div',
      { class: 'actions' },
      revokeButton('Revoke this link', `link-tokens/${id}`, 'Link revoked: opening it identifies nobody from now on (within a minute).'),
    ),
  );
}

// A button that revokes what the path names (one link, or all of them) and says so.
function revokeButton(label: string, path: string, done: string): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: action(async () => {
        await api('DELETE', path);
        say(done);
      }),
    },
    label,
  );
}
