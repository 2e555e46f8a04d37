// A chart of bars and a line over equal slots (hours, days): inline SVG built node by node (no
// markup strings, no style attributes), named by a summary the caller writes, with a legend. Its
// numbers are also given as a table by the caller, for screen readers and for reading exact values.
import { h, s } from './dom';

const plainNumber = new Intl.NumberFormat();

/** One slot: its x-axis label, its bar and line values, the bar's tooltip and data attributes. */
export interface ChartSlot {
  label: string;
  bar: number;
  line: number;
  title: string;
  data: Record<string, string | number>;
}

export interface BarChartOptions {
  /** The element whose text names the chart (the caller's summary line). */
  labelledBy: string;
  /** Extra classes of the <svg> (tests and pages find a chart by them). */
  className: string;
  slots: readonly ChartSlot[];
  /** Over the y axis, e.g. "page views and visitors per hour". */
  yTitle: string;
  /** Under the x axis, e.g. "hour starting (your time)". */
  xTitle: string;
  /** Label every nth slot, counted back from the last one. */
  labelEvery: number;
  legend: { bars: string; line: string };
}

// The top of the y axis and its step: 1, 2 or 5 times a power of ten, about four steps.
function yScale(max: number): { top: number; step: number } {
  if (max <= 4) return { top: Math.max(max, 1), step: 1 };
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((v) => v >= rough) ?? 10 * magnitude;
  return { top: step * Math.ceil(max / step), step };
}

/** The chart and its legend. */
export function barChart({ labelledBy, className, slots, yTitle, xTitle, labelEvery, legend }: BarChartOptions): [SVGSVGElement, HTMLUListElement] {
  const W = 720;
  const H = 260;
  const pad = { left: 48, right: 16, top: 24, bottom: 44 };
  const plotW = W - pad.left - pad.right;
  const plotH = H - pad.top - pad.bottom;
  const slot = plotW / Math.max(slots.length, 1);
  const { top, step } = yScale(Math.max(0, ...slots.map((x) => Math.max(x.bar, x.line))));
  const y = (v: number) => pad.top + plotH - (v / top) * plotH;
  const cx = (i: number) => pad.left + slot * i + slot / 2;

  const svg = s('svg', { class: `bar-chart ${className}`, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': labelledBy });
  const grid = s('g', { class: 'grid' });
  for (let v = 0; v <= top; v += step) {
    grid.append(
      s('line', { x1: pad.left, x2: W - pad.right, y1: y(v), y2: y(v) }),
      s('text', { x: pad.left - 8, y: y(v), 'text-anchor': 'end', 'dominant-baseline': 'middle' }, plainNumber.format(v)),
    );
  }
  grid.append(s('text', { x: pad.left, y: pad.top - 10, 'text-anchor': 'start', class: 'axis-title' }, yTitle));
  const xAxis = s('g', { class: 'x-axis' }, s('line', { x1: pad.left, x2: W - pad.right, y1: y(0), y2: y(0) }));
  slots.forEach((x, i) => {
    if ((slots.length - 1 - i) % labelEvery === 0) xAxis.append(s('text', { x: cx(i), y: H - pad.bottom + 18, 'text-anchor': 'middle' }, x.label));
  });
  xAxis.append(s('text', { x: pad.left + plotW / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-title' }, xTitle));

  const bars = s('g', { class: 'bars' });
  const barW = slot * 0.6;
  slots.forEach((x, i) => {
    const attrs: Record<string, string | number> = { class: 'bar', x: cx(i) - barW / 2, y: y(x.bar), width: barW, height: y(0) - y(x.bar) };
    for (const [name, value] of Object.entries(x.data)) attrs[`data-${name}`] = value;
    bars.append(s('rect', attrs, s('title', {}, x.title)));
  });
  const points = slots.map((x, i) => `${cx(i)},${y(x.line)}`).join(' ');
  const line = s(
    'g',
    { class: 'line' },
    s('polyline', { points }),
    ...slots.map((x, i) => s('circle', { cx: cx(i), cy: y(x.line), r: x.line ? 3.5 : 2, 'data-value': x.line })),
  );
  svg.append(grid, bars, line, xAxis);

  const key = h(
    'ul',
    { class: 'legend' },
    h('li', {}, h('span', { class: 'swatch bars', 'aria-hidden': 'true' }), legend.bars),
    h('li', {}, h('span', { class: 'swatch line', 'aria-hidden': 'true' }), legend.line),
  );
  return [svg, key];
}
