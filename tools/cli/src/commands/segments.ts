// segments list / create / show / members / delete: through a gateway's operator API acting for the
// account (/operator/accounts/ID/account/segments), the same rules as /account/segments: the
// visitors service validates the filter and counts the members now.
import { required, table, UsageError, type Command, type CommandContext } from '../command.js';
import { accountId, OPERATOR_HELP, urlOption } from '../operator-command.js';
import { configuredApi } from '../operator-api.js';

interface SegmentAnswer {
  id: string;
  name: string;
  kind: string;
  filter: Record<string, unknown>;
  alert_window_hours: number;
  count: number;
  evaluated_at: string | null;
}

interface MemberAnswer {
  key: string;
  name: string | null;
  email: string | null;
  score: number;
  reasons: { reason: string; points: number }[];
  visitors: number;
}

const whole = (values: CommandContext['values'], name: string): number | undefined => {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d{1,6}$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
};

const summary = (s: SegmentAnswer) => ({
  id: s.id,
  name: s.name,
  kind: s.kind,
  count: s.count,
  filter: JSON.stringify(s.filter),
  alertWindowHours: s.alert_window_hours,
  evaluatedAt: s.evaluated_at,
});

const segmentOption = { account: { type: 'string' as const }, segment: { type: 'string' as const }, ...urlOption };
const path = (values: CommandContext['values']) => `/segments/${encodeURIComponent(required(values, 'segment'))}`;

/** The filter the options name (each one given; none: everyone). */
function filterOf(values: CommandContext['values']): Record<string, unknown> {
  if (values.identified === true && values.anonymous === true) throw new UsageError('--identified and --anonymous exclude each other');
  const filter: Record<string, unknown> = {};
  const minScore = whole(values, 'min-score');
  if (minScore !== undefined) filter.min_score = minScore;
  for (const [option, field] of [
    ['country', 'country'],
    ['industry', 'industry'],
    ['size', 'size'],
    ['network-type', 'network_type'],
  ] as const)
    if (typeof values[option] === 'string') filter[field] = values[option];
  if (typeof values.page === 'string') filter.pages = { pattern: values.page, within_days: whole(values, 'page-days') ?? 7 };
  if (typeof values.event === 'string') filter.events = { name: values.event, within_days: whole(values, 'event-days') ?? 7 };
  if (values.identified === true) filter.identified = true;
  if (values.anonymous === true) filter.identified = false;
  return filter;
}

export const segmentCommands: Command[] = [
  {
    words: ['segments', 'list'],
    summary: "an account's segments, each with its count now",
    usage: `glimpse segments list --account ID [--url URL] [--json]\n\nGET /operator/accounts/ID/account/segments. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const { items } = (await configuredApi(values).forAccount(accountId(values), 'GET', '/segments')) as { items: SegmentAnswer[] };
      return { items: items.map(summary) };
    },
    human: (r) => table((r as { items: Record<string, unknown>[] }).items, ['id', 'name', 'kind', 'count', 'filter', 'alertWindowHours']),
  },
  {
    words: ['segments', 'create'],
    summary: 'create a segment: a saved filter over visitors or companies (score, country, industry, size, network, pages or events seen, identified)',
    usage: `glimpse segments create --account ID --name NAME --kind visitors|companies [--min-score N] [--country CC] [--industry TEXT] [--size LABEL] [--network-type TYPE] [--page GLOB [--page-days N]] [--event NAME [--event-days N]] [--identified | --anonymous] [--alert-window-hours N] [--url URL] [--json]\n\nA member entering it is announced (segment.entered, to the account's webhooks and Slack) at most once per\n--alert-window-hours (24 by default); --page-days and --event-days default to 7.\n\nPOST /operator/accounts/ID/account/segments. ${OPERATOR_HELP}`,
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      kind: { type: 'string' },
      'min-score': { type: 'string' },
      country: { type: 'string' },
      industry: { type: 'string' },
      size: { type: 'string' },
      'network-type': { type: 'string' },
      page: { type: 'string' },
      'page-days': { type: 'string' },
      event: { type: 'string' },
      'event-days': { type: 'string' },
      identified: { type: 'boolean' },
      anonymous: { type: 'boolean' },
      'alert-window-hours': { type: 'string' },
      ...urlOption,
    },
    async run({ values }) {
      const hours = whole(values, 'alert-window-hours');
      const body = {
        name: required(values, 'name'),
        kind: required(values, 'kind'),
        filter: filterOf(values),
        ...(hours !== undefined ? { alert_window_hours: hours } : {}),
      };
      return summary((await configuredApi(values).forAccount(accountId(values), 'POST', '/segments', body)) as SegmentAnswer);
    },
    human: (r) => {
      const s = r as ReturnType<typeof summary>;
      return `segment created: ${s.id}\n${s.count} ${s.kind === 'companies' ? 'companies' : 'visitors'} in it now`;
    },
  },
  {
    words: ['segments', 'show'],
    summary: 'one segment with its filter and count now',
    usage: `glimpse segments show --account ID --segment ID [--url URL] [--json]\n\nGET /operator/accounts/ID/account/segments/SEGMENT_ID. ${OPERATOR_HELP}`,
    options: segmentOption,
    async run({ values }) {
      return summary((await configuredApi(values).forAccount(accountId(values), 'GET', path(values))) as SegmentAnswer);
    },
    human: (r) =>
      Object.entries(r as Record<string, unknown>)
        .map(([k, v]) => `${k}: ${v ?? '-'}`)
        .join('\n'),
  },
  {
    words: ['segments', 'members'],
    summary: "who is in a segment now, best score first, with the score's top reasons",
    usage: `glimpse segments members --account ID --segment ID [--limit N] [--cursor C] [--url URL] [--json]\n\nOne page (--limit, 50 by default); the next page's --cursor is printed after it.\n\nGET /operator/accounts/ID/account/segments/SEGMENT_ID/members. ${OPERATOR_HELP}`,
    options: { ...segmentOption, limit: { type: 'string' }, cursor: { type: 'string' } },
    async run({ values }) {
      const query = new URLSearchParams();
      const limit = whole(values, 'limit');
      if (limit !== undefined) query.set('limit', String(limit));
      if (typeof values.cursor === 'string') query.set('cursor', values.cursor);
      const search = query.size > 0 ? `?${query.toString()}` : '';
      const page = (await configuredApi(values).forAccount(accountId(values), 'GET', `${path(values)}/members${search}`)) as {
        items: MemberAnswer[];
        nextCursor: string | null;
      };
      return {
        items: page.items.map((m) => ({
          key: m.key,
          name: m.name,
          email: m.email,
          score: m.score,
          reasons: m.reasons.map((x) => `${x.reason} (${x.points})`).join('; '),
          visitors: m.visitors,
        })),
        nextCursor: page.nextCursor,
      };
    },
    human: (r) => {
      const { items, nextCursor } = r as { items: Record<string, unknown>[]; nextCursor: string | null };
      return `${table(items, ['score', 'key', 'name', 'email', 'visitors', 'reasons'])}${nextCursor ? `\nmore: --cursor ${nextCursor}` : ''}`;
    },
  },
  {
    words: ['segments', 'delete'],
    summary: 'delete a segment (its members and pending alerts go with it)',
    usage: `glimpse segments delete --account ID --segment ID [--url URL] [--json]\n\nDELETE /operator/accounts/ID/account/segments/SEGMENT_ID. ${OPERATOR_HELP}`,
    options: segmentOption,
    async run({ values }) {
      await configuredApi(values).forAccount(accountId(values), 'DELETE', path(values));
      return { id: required(values, 'segment'), deleted: true };
    },
    human: (r) => `segment ${(r as { id: string }).id} deleted`,
  },
];
