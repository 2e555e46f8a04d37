// Intent scores in the console: a table's Score cell (its top reasons on hover, and said to screen
// readers), and a detail page's list of every reason with its points.
import type { IntentView } from '@glimpse/api';
import { h, type Child } from './dom';
import { recentTime, when } from './format';

const TOP_REASONS = 3;

const reasonLine = (r: IntentView['reasons'][number]) => `${r.reason}: ${r.points} ${r.points === 1 ? 'point' : 'points'}`;

/** The score, with its top reasons as the cell's title (hover) and label. */
export function scoreCell(intent: IntentView | undefined): Child {
  if (!intent) return '–';
  const top = intent.reasons.slice(0, TOP_REASONS).map(reasonLine);
  const title = top.length ? top.join('\n') : 'Nothing scored yet';
  return h('span', { class: 'score', title, 'aria-label': `${intent.score}. ${top.length ? top.join('; ') : 'Nothing scored yet'}` }, String(intent.score));
}

/** A detail page's section: the score and the reason for every point, best first. */
export function reasonsSection(intent: IntentView | undefined, what: string, level: 'h2' | 'h3'): HTMLElement {
  const heading = h(level, {}, `Intent score: ${intent?.score ?? 0}`);
  if (!intent || intent.reasons.length === 0) return h('section', { class: 'intent' }, heading, h('p', { class: 'muted' }, `Nothing ${what} did scores yet.`));
  return h(
    'section',
    { class: 'intent' },
    heading,
    h(
      'ul',
      { class: 'plain reasons' },
      intent.reasons.map((r) =>
        h('li', {}, h('strong', {}, `+${r.points}`), ' ', r.reason, ' ', h('span', { class: 'muted' }, '(last ', when(r.at, '–', recentTime), ')')),
      ),
    ),
  );
}
