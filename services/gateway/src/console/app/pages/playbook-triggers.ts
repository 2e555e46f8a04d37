// The trigger picker of the playbook form: a checkbox per event name the account has sent (the
// catalog, every page of it), and a notice when the catalog is at its cap.
import { api } from '../api';
import type { Catalog } from '../api-types';
import { h, present } from '../dom';
import { plural } from '../format';

const CATALOG_PAGE_SIZE = '200';

export interface TriggerPicker {
  element: HTMLElement;
  /** (Re)loads the names, keeping the boxes that are checked. */
  load: () => Promise<void>;
  checked: () => string[];
  /** Checks exactly these names (those offered). */
  check: (names: readonly string[]) => void;
}

export function triggerPicker(): TriggerPicker {
  const picker = h('div', { class: 'picker', id: 'trigger-picker' });
  const boxes = () => [...picker.querySelectorAll<HTMLInputElement>('input[name=trigger]')];
  const checked = () =>
    boxes()
      .filter((b) => b.checked)
      .map((b) => b.value);

  // Every page of the catalog (at most its cap of names, 200 a page).
  async function load() {
    const chosen = new Set(checked());
    const items: { name: string }[] = [];
    let page: Catalog;
    let cursor: string | null = null;
    do {
      page = await api<Catalog>('GET', `events/catalog?${new URLSearchParams({ limit: CATALOG_PAGE_SIZE, ...(cursor ? { cursor } : {}) })}`);
      items.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor && picker.isConnected);
    if (!picker.isConnected) return;
    picker.replaceChildren(
      ...(items.length
        ? items.map(({ name }, i) =>
            h(
              'div',
              { class: 'check' },
              h('input', { type: 'checkbox', name: 'trigger', value: name, id: `trigger-${i}`, checked: chosen.has(name) }),
              h('label', { for: `trigger-${i}` }, name),
            ),
          )
        : [h('p', { class: 'muted' }, 'No events received yet. Send one with an event token, then refresh the names.')]),
      ...present(page.full ? catalogFull(page) : null),
    );
  }

  return {
    element: picker,
    load,
    checked,
    check: (names) => {
      for (const box of boxes()) box.checked = names.includes(box.value);
    },
  };
}

// The catalog is at its cap: names beyond it are applied but cannot become triggers.
function catalogFull(page: Catalog): HTMLParagraphElement {
  return h(
    'p',
    { class: 'notice' },
    `This account has the most event names it may have (${page.maxNames}). An event with a name not listed here is still applied, and can stop a playbook as an exit, but its name is not added, so it cannot be a trigger.`,
    page.refused ? ` ${plural(page.refused.events, 'event')} so far had a name that was not added, the last “${page.refused.lastName}”.` : '',
  );
}
