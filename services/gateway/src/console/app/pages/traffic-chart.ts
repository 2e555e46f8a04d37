// A site's traffic chart (bar-chart.ts): page views as bars and visitors as a line per hour of the
// last 24, a one-line summary, a legend and the same numbers as a table for screen readers.
import type { TrafficHour } from '../api-types';
import { barChart } from '../bar-chart';
import { table } from '../components';
import { h } from '../dom';
import { plural } from '../format';

const HOUR_MS = 3_600_000;
const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

export function trafficChart(hours: readonly TrafficHour[]): (HTMLElement | SVGElement)[] {
  const range = (x: TrafficHour) => `${hourLabel.format(new Date(x.hour))}–${hourLabel.format(new Date(Date.parse(x.hour) + HOUR_MS))}`;
  const [svg, legend] = barChart({
    labelledBy: 'traffic-summary',
    className: 'traffic-chart',
    slots: hours.map((x) => ({
      label: hourLabel.format(new Date(x.hour)),
      bar: x.pageViews,
      line: x.visitors,
      title: `${range(x)}: ${plural(x.pageViews, 'page view')}, ${plural(x.visitors, 'visitor')}${x.bots ? `, ${plural(x.bots, 'bot page view')} filtered` : ''}`,
      data: { hour: x.hour, 'page-views': x.pageViews },
    })),
    yTitle: 'page views and visitors per hour',
    xTitle: 'hour starting (your time)',
    labelEvery: 3,
    legend: { bars: 'Page views (bars)', line: 'Visitors (line)' },
  });

  const total = (key: 'pageViews' | 'visitors' | 'bots') => hours.reduce((sum, x) => sum + x[key], 0);
  const busiest = Math.max(0, ...hours.map((x) => x.visitors));
  const summary = h(
    'p',
    { id: 'traffic-summary', class: 'chart-summary' },
    total('pageViews')
      ? `${plural(total('pageViews'), 'page view')} in the last 24 hours; at most ${plural(busiest, 'visitor')} in an hour.`
      : 'No page views in the last 24 hours.',
    total('bots') ? ` ${plural(total('bots'), 'bot page view')} filtered out.` : '',
  );
  const asTable = h(
    'details',
    {},
    h('summary', {}, 'Traffic as a table'),
    table(
      'Traffic per hour, last 24 hours',
      ['Hour', 'Page views', 'Visitors', 'Bots'],
      hours.map((x) => [range(x), String(x.pageViews), String(x.visitors), String(x.bots)]),
      [1, 2, 3],
    ),
  );
  return [summary, svg, legend, asTable];
}
