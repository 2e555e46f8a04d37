// A site's identity secret: shown once (right after the site is added, or rotated), never read back;
// the rotation keeps the previous secret verifying for 24 hours.
import { api } from '../api';
import type { IdentitySecretRotated } from '@glimpse/api';
import type { Site } from '../api-types';
import { h, type Child } from '../dom';
import { when } from '../format';
import { action, say } from '../messages';

export function identitySection(site: Site): HTMLElement {
  const shown = h('div', { id: 'identity-secret' });
  const reveal = (secret: string, note: Child) =>
    shown.replaceChildren(h('p', {}, h('strong', {}, 'Identity secret (shown once): '), h('code', { class: 'wrap' }, secret)), h('p', { class: 'hint' }, note));
  if (site.identity_secret) reveal(site.identity_secret, 'Copy it to your server now: Glimpse never shows it again (rotate to get a new one).');
  const rotate = action(async () => {
    if (!confirm(`Rotate the identity secret of “${site.name}”? The current one keeps verifying for 24 hours.`)) return;
    const r = await api<IdentitySecretRotated>('POST', `sites/${encodeURIComponent(site.id)}/identity-secret`);
    reveal(
      r.identity_secret,
      r.previous_expires_at ? ['The previous secret verifies until ', when(r.previous_expires_at), '.'] : 'The site had no secret before.',
    );
    say(`New identity secret for “${site.name}”: copy it now.`);
  });
  return h(
    'section',
    { class: 'install', 'aria-labelledby': 'identity-title' },
    h('h3', { id: 'identity-title' }, 'Verified identity'),
    h(
      'p',
      {},
      `Verification: ${site.identity_verification ?? 'off'}. `,
      site.identity_secret_set === false ? 'This site has no identity secret yet: rotate to get one.' : '',
    ),
    shown,
    h('button', { type: 'button', class: 'secondary', onclick: rotate }, 'Rotate identity secret'),
  );
}
