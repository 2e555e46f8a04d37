// Declares Prometheus metrics in a service's own registry: one line a metric, its name, help and
// labels, instead of the same options object (registers: [registry]) spelled out at each place.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface Metrics {
  counter<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  gauge<L extends string = never>(name: string, help: string, labelNames?: readonly L[]): Gauge<L>;
  histogram<L extends string = never>(name: string, help: string, buckets: number[], labelNames?: readonly L[]): Histogram<L>;
}

/** The metric declarations of one registry. */
export function metricsIn(registry: Registry): Metrics {
  const registers = [registry];
  return {
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers }),
    gauge: (name, help, labelNames = []) => new Gauge({ name, help, labelNames, registers }),
    histogram: (name, help, buckets, labelNames = []) => new Histogram({ name, help, buckets, labelNames, registers }),
  };
}
