// glimpse network-types: an operator's overrides of the network type of an autonomous system or an
// organisation, which win over the IP files' own types and the shipped classifier.
import { DATABASE_ROLES, roleDatabaseUrl } from '@glimpse/config';
import { deleteNetworkTypeOverride, listNetworkTypeOverrides, setNetworkTypeOverride } from '@glimpse/visitors';
import { required, table, type Command, type CommandContext } from '../command.js';
import { loadConfig } from '../config.js';

// As the visitors role: network_type_overrides is the visitors service's table.
const databaseUrl = () => roleDatabaseUrl(loadConfig().DATABASE_URL, DATABASE_ROLES.visitors);
const target = (values: CommandContext['values']) => ({
  asn: typeof values.asn === 'string' ? values.asn : undefined,
  org: typeof values.org === 'string' ? values.org : undefined,
});
const targetOptions = { asn: { type: 'string' as const }, org: { type: 'string' as const } };

// The two-word commands first: the CLI takes the first command whose words begin the arguments.
export const networkTypeCommands: Command[] = [
  {
    words: ['network-types', 'set'],
    summary: 'type a network: an AS or an organisation is business, education, government, isp, mobile, hosting or unknown',
    usage:
      'glimpse network-types set (--asn 7922 | --org "Example Corp") --type isp [--json]\n\nOnly business, education and government networks name a company. The visitors replicas pick the\nchange up at their next poll of the IP data (VISITORS_IP_DATA_POLL_MS, 30 s) for page views from then on.',
    options: { ...targetOptions, type: { type: 'string' } },
    run: ({ values }) => setNetworkTypeOverride(databaseUrl(), target(values), required(values, 'type')),
    human: (r) => {
      const o = r as { kind: string; value: string; type: string };
      return `${o.kind} ${o.value} is now ${o.type}`;
    },
  },
  {
    words: ['network-types', 'delete'],
    summary: 'remove an override: the file or the classifier types that network again',
    usage: 'glimpse network-types delete (--asn 7922 | --org "Example Corp") [--json]',
    options: targetOptions,
    run: ({ values }) => deleteNetworkTypeOverride(databaseUrl(), target(values)),
    human: () => 'override removed',
  },
  {
    words: ['network-types'],
    summary: "list the operator's overrides of network types (by AS number or organisation)",
    usage: 'glimpse network-types [--json]',
    options: {},
    run: () => listNetworkTypeOverrides(databaseUrl()),
    human: (r) => table(r as Record<string, unknown>[], ['kind', 'value', 'type', 'createdAt']),
  },
];
