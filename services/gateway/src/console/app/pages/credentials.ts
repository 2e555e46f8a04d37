// Event tokens and API keys: a create control, the one-time secret, the list with revoke.
import { api } from '../api';
import type { CreatedCredential, Credential, Paged } from '../api-types';
import { listChanged, loading, pageHeading, secretBox } from '../components';
import { h, hidden, present, type Child } from '../dom';
import { when } from '../format';
import { action } from '../messages';
import { pagedTable } from '../paged-table';
import type { PageRender } from './page';

const CREDENTIALS_PAGE_SIZE = 50;

export interface CredentialsPage {
  /** The collection under /account/, e.g. event-tokens. */
  path: string;
  title: string;
  intro: string;
  noun: string;
  /** The field of the created credential that holds its secret. */
  secretField: 'token' | 'key';
  extraFields?: () => HTMLElement | null;
  /** The request body of a create, read from the form (may refuse with an ApiError). */
  body?: (form: HTMLFormElement) => unknown;
  extraColumns?: string[];
  extraCells?: (row: Credential) => Child[];
}

export function credentialsPage({
  path,
  title,
  intro,
  noun,
  secretField,
  extraFields = () => null,
  body = () => undefined,
  extraColumns = [],
  extraCells = () => [],
}: CredentialsPage): PageRender {
  return (root) => {
    const slot = h('div');
    const list = h('div', {}, loading());
    const form = h('form', { class: 'create' });
    const createButton = h('button', { type: 'submit' }, `Create ${noun}`);
    form.append(...present(extraFields(), createButton));
    const create = action(async () => {
      const created = await api<CreatedCredential>('POST', path, body(form));
      form.reset();
      const box = secretBox(`New ${noun} ${created.prefix}`, created[secretField] ?? '', () => createButton.focus());
      slot.replaceChildren(box);
      box.focus();
      await load();
    });
    // action() reports any error on the page itself, so its promise never rejects: the listener may drop it.
    form.addEventListener('submit', (event) => void create(event));

    // A page at a time (the API's pages, newest first), with "Load more" when there are more.
    async function load() {
      const paged = pagedTable<Credential>({
        caption: title,
        columns: ['Prefix', ...extraColumns, 'Created', 'Last used', 'Status', 'Actions'],
        empty: `No ${noun}s yet.`,
        fetchPage: (cursor) =>
          api<Paged<Credential>>('GET', `${path}?${new URLSearchParams({ limit: String(CREDENTIALS_PAGE_SIZE), ...(cursor ? { cursor } : {}) })}`),
        row: (c) => [
          h('code', {}, `${c.prefix}…`),
          ...extraCells(c),
          when(c.createdAt),
          when(c.lastUsedAt, 'Never'),
          c.revokedAt ? ['Revoked ', when(c.revokedAt)] : 'Active',
          c.revokedAt ? '' : h('button', { type: 'button', class: 'danger', onclick: action(() => revoke(c)) }, 'Revoke', hidden(` ${c.prefix}`)),
        ],
      });
      if (!list.isConnected) return;
      list.replaceChildren(paged.element);
      await paged.load();
    }
    async function revoke(c: Credential) {
      if (!confirm(`Revoke ${noun} ${c.prefix}…? Requests that use it will be refused from now on.`)) return;
      await api('DELETE', `${path}/${c.id}`);
      await listChanged(load, listHeading, `${noun.charAt(0).toUpperCase()}${noun.slice(1)} ${c.prefix}… revoked.`);
    }

    const listHeading = h('h2', { tabindex: '-1' }, `Your ${noun}s`);
    root.append(...pageHeading(title, intro), form, slot, listHeading, list);
    return load();
  };
}
