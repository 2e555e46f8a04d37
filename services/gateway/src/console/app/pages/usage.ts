// Usage: billable lookups per day (UTC) between two dates, the last 30 days at first.
import { api } from '../api';
import type { Usage } from '../api-types';
import { field, filtersForm, loading, pageHeading, table, tableRow } from '../components';
import { h } from '../dom';
import { action } from '../messages';

const DAY_MS = 86_400_000;

export async function usagePage(root: HTMLElement): Promise<void> {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const today = new Date();
  const from = h('input', { type: 'date', required: true, value: day(new Date(today.getTime() - 29 * DAY_MS)) });
  const to = h('input', { type: 'date', required: true, value: day(today) });
  const results = h('div', {}, loading());
  const show = action(async () => {
    const { items, totals } = await api<Usage>('GET', `usage?${new URLSearchParams({ from: from.value, to: to.value })}`);
    if (!results.isConnected) return;
    const days = items.filter((u) => u.identityMatches > 0 || u.enrichedRecords > 0);
    const t = table(
      'Usage by day (UTC)',
      ['Day', 'Identity matches', 'Enriched records'],
      days.map((u) => [u.day, String(u.identityMatches), String(u.enrichedRecords)]),
      [1, 2],
    );
    t.classList.add('narrow');
    t.append(h('tfoot', {}, tableRow(['Total', String(totals.identityMatches), String(totals.enrichedRecords)], [1, 2])));
    const note = days.length ? 'Days without lookups are left out.' : 'No billable lookups in this period.';
    results.replaceChildren(h('p', { class: 'muted' }, note), t);
  });
  root.append(
    ...pageHeading('Usage', 'Billable lookups per day (UTC): identity matches and enriched records.'),
    filtersForm(show, 'Show usage', field('usage-from', 'From', from), field('usage-to', 'To', to)),
    results,
  );
  await show();
}
