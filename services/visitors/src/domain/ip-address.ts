// An address as numbers, for the in-memory range index: IPv4 as one unsigned 32-bit number, IPv6
// as its high and low 64 bits. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is its IPv4 address.
// Hand-written because it runs for every page view and every loaded range: node:net only says
// whether a string is an address, not its value.

export type ParsedAddress = { family: 4; value: number } | { family: 6; hi: bigint; lo: bigint };

/** a.b.c.d with each part 0-255 and no leading zeros beyond "0": the number, or -1. */
export function parseIpv4(text: string): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots += 1;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1; // a leading zero ("01") reads as octal elsewhere: refused
      part = part * 10 + (c - 48);
      digits += 1;
      if (part > 255) return -1;
    } else return -1;
  }
  if (digits === 0 || dots !== 3) return -1;
  return value * 256 + part;
}

const MASK64 = (1n << 64n) - 1n;

/** The eight 16-bit groups of an IPv6 address (with "::" and a trailing dotted IPv4), or null. */
function ipv6Groups(text: string): number[] | null {
  if (text.length < 2 || text.length > 45) return null;
  let body = text;
  const lastColon = body.lastIndexOf(':');
  if (body.indexOf('.', lastColon) > 0) {
    // A dotted IPv4 tail is the last two groups.
    const v4 = parseIpv4(body.slice(lastColon + 1));
    if (v4 < 0) return null;
    body = `${body.slice(0, lastColon + 1)}${Math.floor(v4 / 65536).toString(16)}:${(v4 % 65536).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0]!);
  const rest = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (head === null || rest === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  if (head.length + rest.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

const GROUP = /^[0-9a-fA-F]{1,4}$/;

function groupsOf(s: string): number[] | null {
  if (s === '') return [];
  const out: number[] = [];
  for (const g of s.split(':')) {
    if (!GROUP.test(g)) return null;
    out.push(parseInt(g, 16));
  }
  return out;
}

export function parseAddress(text: string): ParsedAddress | null {
  if (text.indexOf(':') < 0) {
    const v = parseIpv4(text);
    return v < 0 ? null : { family: 4, value: v };
  }
  const groups = ipv6Groups(text);
  if (groups === null) return null;
  let hi = 0n;
  let lo = 0n;
  for (let i = 0; i < 4; i += 1) hi = (hi << 16n) | BigInt(groups[i]!);
  for (let i = 4; i < 8; i += 1) lo = (lo << 16n) | BigInt(groups[i]!);
  // ::ffff:a.b.c.d is an IPv4 client on a dual-stack socket.
  if (hi === 0n && lo >> 32n === 0xffffn) return { family: 4, value: Number(lo & 0xffffffffn) };
  return { family: 6, hi, lo };
}

/** The 128-bit value of an IPv6 address's parts, and back. */
export const v6Value = (hi: bigint, lo: bigint): bigint => (hi << 64n) | lo;
export const v6Parts = (value: bigint): { hi: bigint; lo: bigint } => ({ hi: value >> 64n, lo: value & MASK64 });
