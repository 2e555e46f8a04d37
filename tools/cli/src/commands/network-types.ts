// glimpse network-types: an operator's overrides of the network type of an autonomous system or an
// organisation, which win over the IP files' own types and the shipped classifier. Through the
// gateway's operator API when one is named (/operator/network-types), else as the visitors role.
import { DATABASE_ROLES, roleDatabaseUrl } from '@glimpse/config';
import { AppError } from '@glimpse/errors';
import { deleteNetworkTypeOverride, listNetworkTypeOverrides, setNetworkTypeOverride } from '@glimpse/visitors';
import { required, table, type Command, type CommandContext } from '../command.js';
import { loadConfig } from '../config.js';
import { urlOption } from '../operator-command.js';
import { importApi } from './import-upload.js';
import { THROUGH_GATEWAY } from './ip-data.js';

// As the visitors role: network_type_overrides is the visitors service's table.
const databaseUrl = () => roleDatabaseUrl(loadConfig().DATABASE_URL, DATABASE_ROLES.visitors);

/** The one network named (--asn or --org); both or neither is refused before anything is sent or written. */
function target(values: CommandContext['values']): { asn?: string; org?: string } {
  const named = {
    asn: typeof values.asn === 'string' ? values.asn : undefined,
    org: typeof values.org === 'string' ? values.org : undefined,
  };
  if ((named.asn === undefined) === (named.org === undefined)) throw new AppError('invalid_request', 'name one network: --asn NUMBER or --org NAME');
  return named;
}
const targetOptions = { asn: { type: 'string' as const }, org: { type: 'string' as const }, ...urlOption };

/** The network as the query of DELETE /operator/network-types (?asn=… or ?org=…). */
const targetQuery = (named: { asn?: string; org?: string }) =>
  new URLSearchParams(named.asn !== undefined ? { asn: named.asn } : { org: named.org! }).toString();

// The two-word commands first: the CLI takes the first command whose words begin the arguments.
export const networkTypeCommands: Command[] = [
  {
    words: ['network-types', 'set'],
    summary: 'type a network: an AS or an organisation is business, education, government, isp, mobile, hosting or unknown',
    usage: `glimpse network-types set (--asn 7922 | --org "Example Corp") --type isp [--json] [--url URL]\n\nOnly business, education and government networks name a company. The visitors replicas pick the\nchange up at their next poll of the IP data (VISITORS_IP_DATA_POLL_MS, 30 s) for page views from then on.\nPUT /operator/network-types. ${THROUGH_GATEWAY}`,
    options: { ...targetOptions, type: { type: 'string' } },
    run: ({ values }) => {
      const named = target(values);
      const type = required(values, 'type');
      const api = importApi(values);
      return api ? api.call('PUT', '/operator/network-types', { ...named, type }) : setNetworkTypeOverride(databaseUrl(), named, type);
    },
    human: (r) => {
      const o = r as { kind: string; value: string; type: string };
      return `${o.kind} ${o.value} is now ${o.type}`;
    },
  },
  {
    words: ['network-types', 'delete'],
    summary: 'remove an override: the file or the classifier types that network again',
    usage: `glimpse network-types delete (--asn 7922 | --org "Example Corp") [--json] [--url URL]\n\nDELETE /operator/network-types?asn=… (or ?org=…). ${THROUGH_GATEWAY}`,
    options: targetOptions,
    run: ({ values }) => {
      const named = target(values);
      const api = importApi(values);
      return api ? api.call('DELETE', `/operator/network-types?${targetQuery(named)}`) : deleteNetworkTypeOverride(databaseUrl(), named);
    },
    human: () => 'override removed',
  },
  {
    words: ['network-types'],
    summary: "list the operator's overrides of network types (by AS number or organisation)",
    usage: `glimpse network-types [--json] [--url URL]\n\nGET /operator/network-types. ${THROUGH_GATEWAY}`,
    options: { ...urlOption },
    run: ({ values }) => {
      const api = importApi(values);
      return api ? api.call('GET', '/operator/network-types') : listNetworkTypeOverrides(databaseUrl());
    },
    human: (r) => table(r as Record<string, unknown>[], ['kind', 'value', 'type', 'createdAt']),
  },
];
