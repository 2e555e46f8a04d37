// A table loaded page by page with the API's cursor and a "Load more" button.
import type { Paged } from './api-types';
import { table, tableRow, loading } from './components';
import { h, type Child } from './dom';
import { action, say } from './messages';

export interface PagedTableOptions<T> {
  caption: string;
  columns: readonly string[];
  fetchPage: (cursor: string | null) => Promise<Paged<T>>;
  row: (item: T) => Child[];
  /** Shown instead of the table when the first page is empty. */
  empty: string;
}

export function pagedTable<T>({ caption, columns, fetchPage, row, empty }: PagedTableOptions<T>): { element: HTMLElement; load: () => Promise<void> } {
  const wrap = h('div', {}, loading());
  let body: HTMLTableSectionElement | undefined;
  const more = h('button', { type: 'button', class: 'secondary', onclick: action(() => load(true)) }, 'Load more');
  let cursor: string | null = null;
  async function load(append: boolean) {
    const page = await fetchPage(append ? cursor : null);
    if (!wrap.isConnected) return;
    cursor = page.nextCursor;
    const rows = page.items.map((item) => tableRow(row(item)));
    if (!append || !body) {
      const t = table(caption, columns, []);
      body = t.tBodies[0] ?? t.createTBody();
      wrap.replaceChildren(page.items.length ? t : h('p', {}, empty));
    }
    body.append(...rows);
    if (cursor) wrap.append(more);
    else more.remove();
    const first = rows[0]?.firstElementChild;
    if (append && first instanceof HTMLElement) {
      // Keyboard and screen-reader users continue from the first row that was added.
      first.setAttribute('tabindex', '-1');
      first.focus();
      say(`${rows.length} more loaded${cursor ? '' : '; that is all'}.`);
    }
  }
  return { element: wrap, load: () => load(false) };
}
