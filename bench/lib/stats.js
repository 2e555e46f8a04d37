// Percentiles by nearest rank over raw samples (no interpolation: every figure is an observed value).
'use strict';

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

const round = (n, digits = 1) => (n === null || n === undefined ? null : Math.round(n * 10 ** digits) / 10 ** digits);

/** count, min, p50, p90, p99, max and mean of a list of numbers. */
function summarize(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((s, v) => s + v, 0) / sorted.length : null;
  return {
    count: sorted.length,
    min: round(sorted[0] ?? null),
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? null),
    mean: round(mean),
  };
}

module.exports = { percentile, summarize, round };
