// An account without the workflows add-on: the pages of its endpoints (event tokens, playbooks,
// page rules, events' dry run) say why they are refused, once, under the page's heading.
import { $, h } from './dom';

export function addonNotice(): void {
  const page = $('main').querySelector('.page');
  if (!page || page.querySelector('.addon-notice')) return;
  const notice = h(
    'div',
    { class: 'notice addon-notice', role: 'note' },
    h('strong', {}, 'Workflows add-on required. '),
    'This account does not have the workflows add-on, which covers posting events, creating event tokens, playbooks and page rules. Ask your Glimpse operator to enable it; the rest of the console works without it.',
  );
  const heading = page.querySelector('h1');
  if (heading) heading.after(notice);
  else page.prepend(notice);
}
