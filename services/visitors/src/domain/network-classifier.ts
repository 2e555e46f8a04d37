// The type of network an organisation runs, from its ASN, name and domain, for the IP datasets that
// carry no type of their own (free ASN databases: `start,end,asn,organisation`). Rules, in order:
// the hosting ASNs (network-classifier-data/hosting-asns.json, cited, and well-known-asns.json);
// then the rules of network-classifier-data/name-rules.json (education, government, hosting,
// mobile, isp, business): a domain suffix, else the longest run of two or more listed words, else
// the first rule with a matching word or part of a word; then the default, unknown.
// docs/network-types.md gives the sources, the rules and the figures measured on a labelled sample
// (services/visitors/test/fixtures/network-labels.csv). Pure and fast: it runs for every range of a
// dataset as it is loaded.
import { isNetworkType, type NetworkType } from '@glimpse/validation';
import hostingAsnData from './network-classifier-data/hosting-asns.json';
import nameRuleData from './network-classifier-data/name-rules.json';
import wellKnownAsnData from './network-classifier-data/well-known-asns.json';

export interface NetworkOrganisation {
  asn?: number | null;
  name?: string | null;
  domain?: string | null;
}

/**
 * What a name no rule matches is typed. `unknown`, not `business`: of the names no rule matched, only
 * 42 % on the labelled sample (35 % on IPinfo's mix) were a company's, the rest an ISP's, a carrier's
 * or a host's (docs/network-types.md); a network typed business names the visitor's company, while
 * `unknown` keeps the visitor anonymous.
 */
export const DEFAULT_NETWORK_TYPE: NetworkType = 'unknown';

interface CompiledRule {
  type: NetworkType;
  /** Start of a word, or anywhere in a word; matched against the folded name (words joined by one space). */
  pattern: RegExp | null;
  domain: RegExp | null;
}

const HOSTING_ASNS: ReadonlySet<number> = new Set([...hostingAsnData.asns, ...wellKnownAsnData.hosting.map((entry) => entry.asn)]);

/** Anything but printable ASCII: only such names need Unicode folding. */
const NON_ASCII = /[^\x20-\x7e]/;
const ACCENTS = /[\u0300-\u036f]/g;
const SEPARATORS = /[^a-z0-9&]+/;

/** Lower-case ASCII, accents dropped, cut into words at anything but a letter, a digit or '&'. */
function words(text: string): string[] {
  const folded = NON_ASCII.test(text) ? text.normalize('NFKD').replace(ACCENTS, '') : text;
  const out: string[] = [];
  for (const word of folded.toLowerCase().split(SEPARATORS)) if (word.length > 0) out.push(word);
  return out;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `.ac.??` → a pattern for the end of a domain ('??' is any two letters). */
const domainSuffix = (suffix: string) => escapeRegExp(suffix).replace(/\\\?\\\?/g, '[a-z]{2}');

const RULES: CompiledRule[] = [];
/** Every phrase of the rules' `words` (one or more words, joined by a space) → the index of the first rule that lists it. */
const PHRASES = new Map<string, number>();
/** The beginnings of the phrases of two or more words ('cable', 'cable &'): a run of words is extended only while it is one. */
const PHRASE_STARTS = new Set<string>();

for (const [index, rule] of nameRuleData.rules.entries()) {
  if (!isNetworkType(rule.type)) throw new Error(`network-classifier-data/name-rules.json: ${rule.type} is not a network type`);
  for (const phrase of rule.words) {
    const key = words(phrase).join(' ');
    if (key.length === 0) continue;
    if (!PHRASES.has(key)) PHRASES.set(key, index);
    const parts = key.split(' ');
    for (let length = 1; length < parts.length; length++) PHRASE_STARTS.add(parts.slice(0, length).join(' '));
  }
  const alternatives = [
    ...rule.prefixes.map((prefix) => `(?:^| )${escapeRegExp(words(prefix).join(''))}`),
    ...rule.infixes.map((infix) => escapeRegExp(words(infix).join(''))),
  ];
  RULES.push({
    type: rule.type,
    pattern: alternatives.length > 0 ? new RegExp(alternatives.join('|')) : null,
    domain: rule.domains.length > 0 ? new RegExp(`(?:${rule.domains.map(domainSuffix).join('|')})$`) : null,
  });
}

/**
 * The index of the rule that types this name and domain, or RULES.length. In order: the first rule
 * whose domain suffixes match; a run of two or more words from the rules' `words` (the longest, then
 * the first rule), which is more specific than one word ('cable & wireless' is isp, though 'wireless'
 * alone is mobile); else the first rule whose single word, prefix or infix matches.
 */
function ruleFor(name: string, domain: string): number {
  if (domain.length > 0) {
    for (let index = 0; index < RULES.length; index++) if (RULES[index]!.domain?.test(domain)) return index;
  }
  let best = RULES.length;
  let bestLength = 0;
  const consider = (phrase: string, length: number) => {
    const index = PHRASES.get(phrase);
    if (index !== undefined && (length > bestLength || (length === bestLength && index < best))) {
      best = index;
      bestLength = length;
    }
  };
  const nameWords = words(name);
  for (let start = 0; start < nameWords.length; start++) {
    let phrase = nameWords[start]!;
    consider(phrase, 1);
    for (let end = start + 1; end < nameWords.length && PHRASE_STARTS.has(phrase); end++) {
      phrase = `${phrase} ${nameWords[end]!}`;
      consider(phrase, end - start + 1);
    }
  }
  // The domain's labels but the last count as single words: comcast.net, hetzner.de.
  if (domain.length > 0) for (const label of domain.split('.').slice(0, -1)) consider(label, 1);
  if (bestLength >= 2) return best;
  const folded = nameWords.join(' ');
  for (let index = 0; index < best; index++) if (RULES[index]!.pattern?.test(folded)) return index;
  return best;
}

const MEMO_LIMIT = 100_000;
const memo = new Map<string, NetworkType>();

/** The network type of an organisation (see the file's header for the rules). */
export function classifyNetwork(org: NetworkOrganisation): NetworkType {
  const asn = typeof org.asn === 'number' && Number.isInteger(org.asn) ? org.asn : null;
  if (asn !== null && HOSTING_ASNS.has(asn)) return 'hosting';
  const name = org.name ?? '';
  const domain = (org.domain ?? '').trim().toLowerCase().replace(/\.$/, '');
  if (name.length === 0 && domain.length === 0) return DEFAULT_NETWORK_TYPE;
  // Datasets repeat an organisation for each of its ranges: remember the answer by name and domain.
  const key = domain.length > 0 ? `${name}\u0000${domain}` : name;
  const known = memo.get(key);
  if (known !== undefined) return known;
  const index = ruleFor(name, domain);
  const type = index < RULES.length ? RULES[index]!.type : DEFAULT_NETWORK_TYPE;
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, type);
  return type;
}
