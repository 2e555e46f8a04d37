// A real name server on a local UDP port for the tests: answers A and AAAA queries from a table
// (a name it does not know is NXDOMAIN, a known name without records of the type is NOERROR with
// no answer), or, when told to, never answers at all. Enough DNS (RFC 1035 §4) for c-ares.
import dgram from 'node:dgram';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface DnsServer {
  /** `127.0.0.1:<port>`, for Resolver.setServers or WEBHOOKS_DNS_SERVERS. */
  address: string;
  /** Queries received, by name and type (`hooks.test/A`). */
  queries: string[];
  /** Names and their addresses (IPv4 and IPv6 mixed). */
  records: Map<string, string[]>;
  /** Stop answering (every query is read and dropped), or answer again. */
  silent(on: boolean): void;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  while (msg[i]! !== 0) {
    const len = msg[i]!;
    labels.push(msg.subarray(i + 1, i + 1 + len).toString('ascii'));
    i += 1 + len;
  }
  return { name: labels.join('.').toLowerCase(), end: i + 1 };
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.from(
    groups.flatMap((g) => {
      const n = parseInt(g, 16);
      return [n >> 8, n & 0xff];
    }),
  );
}

export async function startDnsServer(records: Record<string, string[]> = {}): Promise<DnsServer> {
  const table = new Map(Object.entries(records).map(([k, v]) => [k.toLowerCase(), v]));
  const queries: string[] = [];
  let mute = false;
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    if (msg.length < 12) return;
    const { name, end } = readName(msg, 12);
    const type = msg.readUInt16BE(end);
    queries.push(`${name}/${type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : type}`);
    if (mute) return;
    const question = msg.subarray(12, end + 4);
    const known = table.get(name);
    const wanted = (known ?? []).filter((a) => (type === TYPE_A ? net.isIPv4(a) : type === TYPE_AAAA ? net.isIPv6(a) : false));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0); // id
    header.writeUInt16BE(0x8180 | (msg.readUInt16BE(2) & 0x0100) | (known ? 0 : 3), 2); // QR, RD as asked, RA; NXDOMAIN when unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(wanted.length, 6);
    const answers = wanted.map((a) => {
      const rdata = net.isIPv4(a) ? Buffer.from(a.split('.').map(Number)) : ipv6Bytes(a);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // the question's name
      rr.writeUInt16BE(type, 2);
      rr.writeUInt16BE(1, 4); // IN
      rr.writeUInt32BE(30, 6); // TTL
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    socket.send(Buffer.concat([header, question, ...answers]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    queries,
    records: table,
    silent(on) {
      mute = on;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
