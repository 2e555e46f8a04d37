// API keys: the lookups' and this console's credentials, each with the scopes chosen here.
import { invalid } from '../api';
import { h } from '../dom';
import { names } from '../format';
import { credentialsPage } from './credentials';

const SCOPES: readonly (readonly [scope: string, what: string])[] = [
  ['visitors:read', 'visitor details lookup'],
  ['enrichment:read', 'enrichment lookup'],
  ['account:manage', 'this console and the management API'],
];

export const apiKeysPage = credentialsPage({
  path: 'api-keys',
  title: 'API keys',
  noun: 'API key',
  secretField: 'key',
  intro: 'API keys authenticate the lookups and this console; each key has only the scopes you give it.',
  extraFields: () =>
    h(
      'fieldset',
      {},
      h('legend', {}, 'Scopes of the new key'),
      SCOPES.map(([scope, what]) =>
        h(
          'div',
          { class: 'check' },
          h('input', { type: 'checkbox', name: 'scope', value: scope, id: `scope-${scope}` }),
          h('label', { for: `scope-${scope}` }, h('code', {}, scope), ` — ${what}`),
        ),
      ),
    ),
  body: (form) => {
    const scopes = [...form.querySelectorAll<HTMLInputElement>('input[name=scope]:checked')].map((i) => i.value);
    if (!scopes.length) throw invalid('Choose at least one scope for the new key.');
    return { scopes };
  },
  extraColumns: ['Scopes'],
  extraCells: (k) => [names('scopes' in k ? k.scopes : [])],
});
