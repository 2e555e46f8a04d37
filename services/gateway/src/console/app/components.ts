// The building blocks every page uses: labelled fields, tables, headings, the one-time secret box
// and copy buttons.
import { h, present, type Child } from './dom';
import { clearMessages, say } from './messages';

export function field(id: string, label: string, input: HTMLElement, hint?: string): HTMLDivElement {
  input.id = id;
  if (hint) input.setAttribute('aria-describedby', `${id}-hint`);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint && h('p', { class: 'hint', id: `${id}-hint` }, hint));
}

/**
 * After a change made from a row of a list: the list loaded again, focus on its heading (the row
 * and its buttons may be gone, or have changed), and the change announced.
 */
export async function listChanged(load: () => Promise<void>, heading: HTMLElement, message: string): Promise<void> {
  await load();
  heading.focus();
  say(message);
}

/** A one-line form (filters, a lookup, a single input): its fields, then its submit button (a label, or a button of its own). */
export function filtersForm(onsubmit: (event: Event) => unknown, submit: string | HTMLButtonElement, ...fields: Child[]): HTMLFormElement {
  return h('form', { class: 'filters', onsubmit }, ...fields, typeof submit === 'string' ? h('button', { type: 'submit' }, submit) : submit);
}

/** The table of the rows, or, when there are none, the element that says so. */
export function tableOr(
  none: HTMLElement,
  caption: string,
  columns: readonly string[],
  rows: readonly (readonly Child[])[],
  numeric: readonly number[] = [],
): HTMLElement {
  return rows.length ? table(caption, columns, rows, numeric) : none;
}

// The first cell is the row's header, so screen readers name each row by it.
export function table(caption: string, columns: readonly string[], rows: readonly (readonly Child[])[], numeric: readonly number[] = []): HTMLTableElement {
  return h(
    'table',
    {},
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c, i) => h('th', { scope: 'col', class: numeric.includes(i) ? 'num' : null }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((cells) => tableRow(cells, numeric)),
    ),
  );
}

export function tableRow(cells: readonly Child[], numeric: readonly number[] = []): HTMLTableRowElement {
  return h(
    'tr',
    {},
    cells.map((c, i) => h(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : null, class: numeric.includes(i) ? 'num' : null }, c)),
  );
}

/** A wide table in smaller type (sites, visitors). */
export const compact = (t: HTMLTableElement): HTMLTableElement => (t.classList.add('compact'), t);

export function pageHeading(title: string, intro?: string): (Node | string)[] {
  return present(h('h1', { tabindex: '-1' }, title), intro ? h('p', { class: 'intro' }, intro) : null);
}

export const loading = (): HTMLParagraphElement => h('p', { class: 'muted' }, 'Loading…');

// Shows a new secret once. The text node inside is the page's only copy: dismissing removes it.
export function secretBox(title: string, secret: string, onDismiss: () => void): HTMLElement {
  const value = h('code', { class: 'secret-value', id: 'one-time-secret' }, secret);
  const box = h(
    'section',
    { class: 'secret-box', 'aria-labelledby': 'secret-title', tabindex: '-1' },
    h('h2', { id: 'secret-title' }, title),
    h('p', {}, 'Copy it now and keep it somewhere safe: it is shown only this once.'),
    h('p', {}, value),
    h(
      'div',
      { class: 'actions' },
      copyButton('Copy', value),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => {
            box.remove();
            onDismiss();
          },
        },
        'Done, hide it',
      ),
    ),
  );
  return box;
}

// Copies an element's text; where the clipboard API is refused (no permission, not a secure
// context), selects the text and tries the old copy command, else asks for the keyboard.
export function copyButton(label: string, source: HTMLElement): HTMLButtonElement {
  return h('button', { type: 'button', onclick: copy }, label);
  async function copy() {
    clearMessages();
    try {
      await navigator.clipboard.writeText(source.textContent ?? '');
      say('Copied to the clipboard.');
    } catch {
      getSelection()?.selectAllChildren(source);
      let copied: boolean;
      try {
        copied = document.execCommand('copy');
      } catch {
        copied = false;
      }
      say(copied ? 'Copied to the clipboard.' : 'The clipboard is not available here: the text is selected, copy it with your keyboard.');
    }
  }
}

/** Hands a file to the browser's downloads, as a link with `download` would. */
export function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // Freed once the download has surely read it (revoked at once, a browser may not have started).
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
