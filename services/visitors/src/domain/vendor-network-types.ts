// How the vendors' words for a network map to NETWORK_TYPES. A word not listed says nothing (null):
// the classifier decides for it when the dataset is loaded.
import type { NetworkType } from '@glimpse/validation';

/** MaxMind GeoIP2 Enterprise / Insights `traits.user_type`. */
const MAXMIND_USER_TYPES: Record<string, NetworkType> = {
  business: 'business',
  college: 'education',
  school: 'education',
  library: 'education',
  government: 'government',
  military: 'government',
  residential: 'isp',
  dialup: 'isp',
  router: 'isp',
  cafe: 'isp',
  traveler: 'isp',
  cellular: 'mobile',
  hosting: 'hosting',
  content_delivery_network: 'hosting',
  consumer_privacy: 'hosting',
  search_engine_spider: 'hosting',
};

/** MaxMind GeoIP2 Connection-Type (and Enterprise) `connection_type`. */
const MAXMIND_CONNECTION_TYPES: Record<string, NetworkType> = {
  Cellular: 'mobile',
  'Cable/DSL': 'isp',
  Dialup: 'isp',
  Satellite: 'isp',
  Corporate: 'business',
};

/** IPinfo's `type`, `company.type` and `asn.type`. */
const IPINFO_TYPES: Record<string, NetworkType> = {
  isp: 'isp',
  business: 'business',
  education: 'education',
  hosting: 'hosting',
  government: 'government',
};

const lookup = (table: Record<string, NetworkType>, word: unknown): NetworkType | null =>
  typeof word === 'string' && Object.hasOwn(table, word) ? table[word]! : null;

export const maxmindUserType = (word: unknown) => lookup(MAXMIND_USER_TYPES, word);
export const maxmindConnectionType = (word: unknown) => lookup(MAXMIND_CONNECTION_TYPES, word);
export const ipinfoType = (word: unknown) => lookup(IPINFO_TYPES, typeof word === 'string' ? word.toLowerCase() : word);
