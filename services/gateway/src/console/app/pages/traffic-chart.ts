// The traffic chart: inline SVG built node by node (no markup strings, no style attributes), with
// a one-line summary, a legend and the same numbers as a table for screen readers.
import type { TrafficHour } from '../api-types';
import { table } from '../components';
import { h, s } from '../dom';
import { plural } from '../format';

const HOUR_MS = 3_600_000;
const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const plainNumber = new Intl.NumberFormat();

// The top of the y axis and its step: 1, 2 or 5 times a power of ten, about four steps.
function yScale(max: number): { top: number; step: number } {
  if (max <= 4) return { top: Math.max(max, 1), step: 1 };
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((v) => v >= rough) ?? 10 * magnitude;
  return { top: step * Math.ceil(max / step), step };
}

export function trafficChart(hours: readonly TrafficHour[]): (HTMLElement | SVGElement)[] {
  const W = 720;
  const H = 260;
  const pad = { left: 48, right: 16, top: 24, bottom: 44 };
  const plotW = W - pad.left - pad.right;
  const plotH = H - pad.top - pad.bottom;
  const slot = plotW / Math.max(hours.length, 1);
  const { top, step } = yScale(Math.max(0, ...hours.map((x) => Math.max(x.pageViews, x.visitors))));
  const y = (v: number) => pad.top + plotH - (v / top) * plotH;
  const cx = (i: number) => pad.left + slot * i + slot / 2;
  const range = (x: TrafficHour) => `${hourLabel.format(new Date(x.hour))}–${hourLabel.format(new Date(Date.parse(x.hour) + HOUR_MS))}`;

  const svg = s('svg', { class: 'traffic-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': 'traffic-summary' });
  const grid = s('g', { class: 'grid' });
  for (let v = 0; v <= top; v += step) {
    grid.append(
      s('line', { x1: pad.left, x2: W - pad.right, y1: y(v), y2: y(v) }),
      s('text', { x: pad.left - 8, y: y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, plainNumber.format(v)),
    );
  }
  grid.append(s('text', { x: pad.left, y: pad.top - 10, 'text-anchor': 'start', class: 'axis-title' }, 'page views and visitors per hour'));
  const xAxis = s('g', { class: 'x-axis' }, s('line', { x1: pad.left, x2: W - pad.right, y1: y(0), y2: y(0) }));
  hours.forEach((x, i) => {
    if ((hours.length - 1 - i) % 3 === 0)
      xAxis.append(s('text', { x: cx(i), y: H - pad.bottom + 18, 'text-anchor': 'middle' }, hourLabel.format(new Date(x.hour))));
  });
  xAxis.append(s('text', { x: pad.left + plotW / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-title' }, 'hour starting (your time)'));

  const bars = s('g', { class: 'bars' });
  hours.forEach((x, i) => {
    const barW = slot * 0.6;
    bars.append(
      s(
        'rect',
        {
          class: 'bar',
          x: cx(i) - barW / 2,
          y: y(x.pageViews),
          width: barW,
          height: y(0) - y(x.pageViews),
          'data-hour': x.hour,
          'data-page-views': x.pageViews,
        },
        s(
          'title',
          {},
          `${range(x)}: ${plural(x.pageViews, 'page view')}, ${plural(x.visitors, 'visitor')}${x.bots ? `, ${plural(x.bots, 'bot page view')} filtered` : ''}`,
        ),
      ),
    );
  });
  const points = hours.map((x, i) => `${cx(i)},${y(x.visitors)}`).join(' ');
  const visitors = s(
    'g',
    { class: 'visitors-line' },
    s('polyline', { points }),
    ...hours.map((x, i) => s('circle', { cx: cx(i), cy: y(x.visitors), r: x.visitors ? 3.5 : 2, 'data-visitors': x.visitors })),
  );
  svg.append(grid, bars, visitors, xAxis);

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
  const legend = h(
    'ul',
    { class: 'legend' },
    h('li', {}, h('span', { class: 'swatch page-views', 'aria-hidden': 'true' }), 'Page views (bars)'),
    h('li', {}, h('span', { class: 'swatch visitors', 'aria-hidden': 'true' }), 'Visitors (line)'),
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
