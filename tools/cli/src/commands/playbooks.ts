// playbook create / update / list / enrollments; events catalog / dry-run / receipt; suppression
// add / list / remove. All through a gateway's operator API acting for the account
// (/operator/accounts/ID/account/…): the same routes, rules and configured caps as the account's own
// management API (PLAYBOOKS_PER_ACCOUNT, TRIGGERS_PER_PLAYBOOK, … as the playbook service has them).
import { required, table, type Command, type CommandContext } from '../command.js';
import { accountId, OPERATOR_HELP, urlOption } from '../operator-command.js';
import { configuredApi, type OperatorApi } from '../operator-api.js';

const asList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

const PAGE = 200;

interface Page {
  items: Record<string, unknown>[];
  nextCursor: string | null;
}

/**
 * The items of a paged list: the first PAGE of them, or every page with `all`. Says on stderr
 * when there are more than were fetched.
 */
async function pagedItems(
  api: OperatorApi,
  account: string,
  path: string,
  { all, io }: { all: boolean; io: CommandContext['io'] },
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: String(PAGE), ...(cursor ? { cursor } : {}) });
    const page = (await api.forAccount(account, 'GET', `${path}?${query}`)) as Page;
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && all);
  if (cursor) io.stderr(`note: the first ${PAGE}; --all lists every one\n`);
  return items;
}

const accountOptions = { account: { type: 'string' as const }, ...urlOption };
const help = (usage: string, route: string) => `${usage}\n\n${route}. ${OPERATOR_HELP}`;

export const playbookCommands: Command[] = [
  {
    words: ['playbook', 'create'],
    summary: 'create a playbook; triggers must be event names already sent (rule 3)',
    usage: help(
      "glimpse playbook create --account ID --name NAME [--trigger EVENT]... [--exit EVENT]... [--reenrollment once|when_inactive|restart] [--url URL] [--json]\n\nHeld to the playbook service's configured caps (PLAYBOOKS_PER_ACCOUNT, TRIGGERS_PER_PLAYBOOK, EXITS_PER_PLAYBOOK), as on POST /account/playbooks.",
      'POST /operator/accounts/ID/account/playbooks',
    ),
    options: {
      ...accountOptions,
      name: { type: 'string' },
      trigger: { type: 'string', multiple: true },
      exit: { type: 'string', multiple: true },
      reenrollment: { type: 'string' },
    },
    async run({ values }) {
      const body = {
        name: required(values, 'name'),
        triggers: asList(values.trigger),
        exits: asList(values.exit),
        ...(typeof values.reenrollment === 'string' ? { reenrollment: values.reenrollment } : {}),
      };
      const playbook = (await configuredApi(values).forAccount(accountId(values), 'POST', '/playbooks', body)) as { id: string; reenrollment: string };
      return { id: playbook.id, reenrollment: playbook.reenrollment };
    },
    human: (r) => `playbook created: ${(r as { id: string }).id} (re-enrollment: ${(r as { reenrollment: string }).reenrollment})`,
  },
  {
    words: ['playbook', 'update'],
    summary: "change a playbook's name or re-enrollment policy",
    usage: help(
      'glimpse playbook update --account ID --playbook PLAYBOOK_ID [--name NAME] [--reenrollment once|when_inactive|restart] [--url URL] [--json]',
      'PATCH /operator/accounts/ID/account/playbooks/PLAYBOOK_ID',
    ),
    options: { ...accountOptions, playbook: { type: 'string' }, name: { type: 'string' }, reenrollment: { type: 'string' } },
    run: async ({ values }) =>
      configuredApi(values).forAccount(accountId(values), 'PATCH', `/playbooks/${encodeURIComponent(required(values, 'playbook'))}`, {
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
        ...(typeof values.reenrollment === 'string' ? { reenrollment: values.reenrollment } : {}),
      }),
    human: (r) => table([r as Record<string, unknown>], ['id', 'name', 'triggers', 'exits', 'reenrollment']),
  },
  {
    words: ['playbook', 'list'],
    summary: "list an account's playbooks with their triggers and exits",
    usage: help('glimpse playbook list --account ID [--url URL] [--json]', 'GET /operator/accounts/ID/account/playbooks'),
    options: accountOptions,
    run: async ({ values }) => ((await configuredApi(values).forAccount(accountId(values), 'GET', '/playbooks')) as Page).items,
    human: (r) => table(r as Record<string, unknown>[], ['id', 'name', 'triggers', 'exits', 'reenrollment', 'createdAt']),
  },
  {
    words: ['playbook', 'enrollments'],
    summary: "list a playbook's enrollments (the first 200, or every one with --all)",
    usage: help(
      'glimpse playbook enrollments --account ID --playbook PLAYBOOK_ID [--all] [--url URL] [--json]',
      'GET /operator/accounts/ID/account/playbooks/PLAYBOOK_ID/enrollments',
    ),
    options: { ...accountOptions, playbook: { type: 'string' }, all: { type: 'boolean' } },
    run: async ({ values, io }) =>
      pagedItems(configuredApi(values), accountId(values), `/playbooks/${encodeURIComponent(required(values, 'playbook'))}/enrollments`, {
        all: values.all === true,
        io,
      }),
    human: (r) => table(r as Record<string, unknown>[], ['email', 'status', 'startedAt', 'startedBy', 'stoppedAt', 'stoppedBy']),
  },
  {
    words: ['events', 'catalog'],
    summary: 'list the event names an account has sent (at most its cap of names, CATALOG_NAMES_PER_ACCOUNT)',
    usage: help('glimpse events catalog --account ID [--all] [--url URL] [--json]', 'GET /operator/accounts/ID/account/events/catalog'),
    options: { ...accountOptions, all: { type: 'boolean' } },
    run: async ({ values, io }) => pagedItems(configuredApi(values), accountId(values), '/events/catalog', { all: values.all === true, io }),
    human: (r) => table(r as Record<string, unknown>[], ['name', 'firstSeenAt', 'lastSeenAt', 'count']),
  },
  {
    words: ['events', 'dry-run'],
    summary: 'what an event would do for a person now, per opted-in playbook (writes nothing)',
    usage: help('glimpse events dry-run --account ID --event NAME --email EMAIL [--url URL] [--json]', 'POST /operator/accounts/ID/account/events/dry-run'),
    options: { ...accountOptions, event: { type: 'string' }, email: { type: 'string' } },
    run: async ({ values }) =>
      configuredApi(values).forAccount(accountId(values), 'POST', '/events/dry-run', { event: required(values, 'event'), email: required(values, 'email') }),
    human: (r) => {
      const run = r as { catalog: string; playbooks: Record<string, unknown>[] };
      const catalog =
        { known: 'in the catalog', new: 'not yet in the catalog', full: 'not in the catalog, which is full: it would not be added' }[run.catalog] ??
        run.catalog;
      return `${table(run.playbooks, ['name', 'outcome', 'reason', 'id'])}\n(event name ${catalog}; nothing was written)`;
    },
  },
  {
    words: ['events', 'receipt'],
    summary: 'what an accepted event did: playbooks started, stopped, and why the others were left',
    usage: help('glimpse events receipt --account ID --event-id EVENT_ID [--url URL] [--json]', 'GET /operator/accounts/ID/account/events/EVENT_ID'),
    options: { ...accountOptions, 'event-id': { type: 'string' } },
    run: async ({ values }) => configuredApi(values).forAccount(accountId(values), 'GET', `/events/${encodeURIComponent(required(values, 'event-id'))}`),
    human: (r) => {
      const receipt = r as {
        event: string | null;
        started: { name: string | null; id: string }[];
        stopped: { name: string | null; id: string }[];
        unchanged: { name: string | null; id: string; reason: string }[];
      };
      const rows = [
        ...receipt.started.map((p) => ({ playbook: p.name ?? p.id, what: 'started' })),
        ...receipt.stopped.map((p) => ({ playbook: p.name ?? p.id, what: 'stopped' })),
        ...receipt.unchanged.map((p) => ({ playbook: p.name ?? p.id, what: `unchanged: ${p.reason}` })),
      ];
      return `${receipt.event ?? '(no playbook opts in to this event)'}\n${table(rows, ['playbook', 'what'])}`;
    },
  },
  {
    words: ['suppression', 'add'],
    summary: 'suppress a person: their events start nothing; their active enrollments stop (suppressed)',
    usage: help(
      "glimpse suppression add --account ID --email EMAIL [--url URL] [--json]\n\nHeld to the playbook service's SUPPRESSIONS_PER_ACCOUNT, as on POST /account/suppressions.",
      'POST /operator/accounts/ID/account/suppressions',
    ),
    options: { ...accountOptions, email: { type: 'string' } },
    run: async ({ values }) => configuredApi(values).forAccount(accountId(values), 'POST', '/suppressions', { email: required(values, 'email') }),
    human: (r) => `suppressed: ${(r as { email: string }).email} (${(r as { stoppedEnrollments: number }).stoppedEnrollments} active enrollment(s) stopped)`,
  },
  {
    words: ['suppression', 'list'],
    summary: "list an account's suppressed people, newest first (the first 200, or every one with --all)",
    usage: help('glimpse suppression list --account ID [--all] [--url URL] [--json]', 'GET /operator/accounts/ID/account/suppressions'),
    options: { ...accountOptions, all: { type: 'boolean' } },
    run: async ({ values, io }) => pagedItems(configuredApi(values), accountId(values), '/suppressions', { all: values.all === true, io }),
    human: (r) => table(r as Record<string, unknown>[], ['email', 'createdAt']),
  },
  {
    words: ['suppression', 'remove'],
    summary: 'lift a suppression',
    usage: help('glimpse suppression remove --account ID --email EMAIL [--url URL] [--json]', 'DELETE /operator/accounts/ID/account/suppressions/EMAIL'),
    options: { ...accountOptions, email: { type: 'string' } },
    async run({ values }) {
      await configuredApi(values).forAccount(accountId(values), 'DELETE', `/suppressions/${encodeURIComponent(required(values, 'email'))}`);
      return { removed: true };
    },
    human: () => 'suppression lifted',
  },
];
