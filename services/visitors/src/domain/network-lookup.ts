// What an address says about a visitor, from the datasets a replica holds in memory: the network
// (who holds the range, its autonomous system and its type), the company when the network's type
// names one (business, education, government), and where it is (the City database). The type of a
// range is, in order: an operator's override of its AS or its organisation, the file's own type,
// the shipped classifier (docs/network-types.md).
import { namesCompany, type NetworkType } from '@glimpse/validation';
import type { RangeIndex } from './range-index.js';

/** A range's fields as its file gave them (type null: the file has none). */
export interface NetworkRecord {
  asn: number | null;
  name: string | null;
  domain: string | null;
  type: NetworkType | null;
}

export interface Network {
  name: string | null;
  type: NetworkType;
  asn: number | null;
  domain: string | null;
}

export interface Company {
  name: string;
  domain: string | null;
}

/** Where an address is, as a City database says (ISO 3166 country code, first subdivision, city, IANA time zone). */
export interface Location {
  country: string | null;
  region: string | null;
  city: string | null;
  time_zone: string | null;
}

export interface NetworkInfo {
  network: Network | null;
  company: Company | null;
  location: Location | null;
}

export interface RangeDataset {
  name: string;
  precedence: number;
  index: RangeIndex<NetworkRecord>;
}

export interface TypeOverrides {
  /** By autonomous system number. */
  asn: ReadonlyMap<number, NetworkType>;
  /** By organisation name, lower-cased. */
  org: ReadonlyMap<string, NetworkType>;
}

export type NetworkClassifier = (org: { asn?: number | null; name?: string | null; domain?: string | null }) => NetworkType;

export interface NetworkLookup {
  lookup(address: string): NetworkInfo;
}

export const NO_OVERRIDES: TypeOverrides = { asn: new Map(), org: new Map() };

/** The highest precedence first; of equal precedence, by name, so every replica decides alike. */
export function byPrecedence(a: { name: string; precedence: number }, b: { name: string; precedence: number }): number {
  return b.precedence - a.precedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

export function createNetworkLookup(options: {
  datasets: readonly RangeDataset[];
  overrides?: TypeOverrides;
  classify: NetworkClassifier;
  locate?: (address: string) => Location | null;
}): NetworkLookup {
  const datasets = [...options.datasets].sort(byPrecedence);
  const overrides = options.overrides ?? NO_OVERRIDES;
  // A record is typed once: many ranges (and page views) share it.
  const typed = new WeakMap<NetworkRecord, Network>();
  const networkOf = (r: NetworkRecord): Network => {
    let n = typed.get(r);
    if (!n) {
      const type =
        (r.asn !== null ? overrides.asn.get(r.asn) : undefined) ??
        (r.name !== null ? overrides.org.get(r.name.toLowerCase()) : undefined) ??
        r.type ??
        options.classify(r);
      n = { name: r.name, type, asn: r.asn, domain: r.domain };
      typed.set(r, n);
    }
    return n;
  };
  return {
    lookup(address) {
      let network: Network | null = null;
      for (const d of datasets) {
        const record = d.index.find(address);
        if (record) {
          network = networkOf(record);
          break;
        }
      }
      const company = network && network.name && namesCompany(network.type) ? { name: network.name, domain: network.domain } : null;
      return { network, company, location: options.locate?.(address) ?? null };
    },
  };
}
