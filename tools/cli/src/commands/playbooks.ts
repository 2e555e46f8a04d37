// playbook create / list / enrollments; events catalog.
import { AppError } from '@glimpse/errors';
import { normalizeEmail } from '@glimpse/validation';
import { createPlaybook, dryRunEvent, getReceipt, suppressPerson, suppressionPage, unsuppressPerson, eventCatalog, listEnrollments, listPlaybooks, updatePlaybook, validateEventNames, type ReenrollmentPolicy } from '@glimpse/playbook';
import { required, table, type Command } from '../command.js';
import { existingAccountId } from './lookups.js';
import { capsOf, loadConfig } from '../config.js';

const caps = () => capsOf(loadConfig());

const asList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

export const playbookCommands: Command[] = [
  {
    words: ['playbook', 'create'],
    summary: 'create a playbook; triggers must be event names already sent (rule 3)',
    usage: 'glimpse playbook create --account ID --name NAME [--trigger EVENT]... [--exit EVENT]... [--reenrollment once|when_inactive|restart] [--json]',
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      trigger: { type: 'string', multiple: true },
      exit: { type: 'string', multiple: true },
      reenrollment: { type: 'string' },
    },
    async run({ values, db }) {
      const playbook = await createPlaybook(db('playbook'), {
        accountId: await existingAccountId(values, db('gateway')),
        name: required(values, 'name'),
        triggers: asList(values.trigger),
        exits: asList(values.exit),
        ...(typeof values.reenrollment === 'string' ? { reenrollment: values.reenrollment } : {}),
      }, caps().playbook);
      return { id: playbook.id, reenrollment: playbook.reenrollment };
    },
    human: (r) => `playbook created: ${(r as { id: string }).id} (re-enrollment: ${(r as { reenrollment: string }).reenrollment})`,
  },
  {
    words: ['playbook', 'update'],
    summary: "change a playbook's name or re-enrollment policy",
    usage: 'glimpse playbook update --account ID --playbook PLAYBOOK_ID [--name NAME] [--reenrollment once|when_inactive|restart] [--json]',
    options: { account: { type: 'string' }, playbook: { type: 'string' }, name: { type: 'string' }, reenrollment: { type: 'string' } },
    run: async ({ values, db }) =>
      updatePlaybook(db('playbook'), {
        accountId: await existingAccountId(values, db('gateway')),
        playbookId: required(values, 'playbook'),
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
        ...(typeof values.reenrollment === 'string' ? { reenrollment: values.reenrollment as ReenrollmentPolicy } : {}),
      }, caps().playbook),
    human: (r) => table([r as Record<string, unknown>], ['id', 'name', 'triggers', 'exits', 'reenrollment']),
  },
  {
    words: ['playbook', 'list'],
    summary: "list an account's playbooks with their triggers and exits",
    usage: 'glimpse playbook list --account ID [--json]',
    options: { account: { type: 'string' } },
    run: async ({ values, db }) => listPlaybooks(db('playbook'), await existingAccountId(values, db('gateway'))),
    human: (r) => table(r as Record<string, unknown>[], ['id', 'name', 'triggers', 'exits', 'reenrollment', 'createdAt']),
  },
  {
    words: ['playbook', 'enrollments'],
    summary: "list a playbook's enrollments",
    usage: 'glimpse playbook enrollments --account ID --playbook PLAYBOOK_ID [--json]',
    options: { account: { type: 'string' }, playbook: { type: 'string' } },
    run: async ({ values, db }) => listEnrollments(db('playbook'), await existingAccountId(values, db('gateway')), required(values, 'playbook')),
    human: (r) => table(r as Record<string, unknown>[], ['email', 'status', 'startedAt', 'startedBy', 'stoppedAt', 'stoppedBy']),
  },
  {
    words: ['events', 'catalog'],
    summary: 'list the event names an account has sent (at most its cap of names, CATALOG_NAMES_PER_ACCOUNT)',
    usage: 'glimpse events catalog --account ID [--json]',
    options: { account: { type: 'string' } },
    run: async ({ values, db }) => eventCatalog(db('playbook'), await existingAccountId(values, db('gateway')), { maxNames: caps().catalogNames }),
    human: (r) => table(r as Record<string, unknown>[], ['name', 'firstSeenAt', 'lastSeenAt', 'count']),
  },
  {
    words: ['events', 'dry-run'],
    summary: 'what an event would do for a person now, per opted-in playbook (writes nothing)',
    usage: 'glimpse events dry-run --account ID --event NAME --email EMAIL [--json]',
    options: { account: { type: 'string' }, event: { type: 'string' }, email: { type: 'string' } },
    async run({ values, db }) {
      const email = emailOf(values);
      const [event] = validateEventNames([required(values, 'event')], 'event');
      return dryRunEvent(db('playbook'), await existingAccountId(values, db('gateway')), { event: event!, email }, { maxCatalogNames: caps().catalogNames });
    },
    human: (r) => {
      const run = r as { catalog: string; playbooks: Record<string, unknown>[] };
      const catalog = { known: 'in the catalog', new: 'not yet in the catalog', full: 'not in the catalog, which is full: it would not be added' }[run.catalog] ?? run.catalog;
      return `${table(run.playbooks, ['name', 'outcome', 'reason', 'id'])}\n(event name ${catalog}; nothing was written)`;
    },
  },
  {
    words: ['events', 'receipt'],
    summary: 'what an accepted event did: playbooks started, stopped, and why the others were left',
    usage: 'glimpse events receipt --account ID --event-id EVENT_ID [--json]',
    options: { account: { type: 'string' }, 'event-id': { type: 'string' } },
    run: async ({ values, db }) => getReceipt(db('playbook'), await existingAccountId(values, db('gateway')), required(values, 'event-id')),
    human: (r) => {
      const receipt = r as { event: string | null; started: { name: string | null; id: string }[]; stopped: { name: string | null; id: string }[]; unchanged: { name: string | null; id: string; reason: string }[] };
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
    summary: "suppress a person: their events start nothing; their active enrollments stop (suppressed)",
    usage: 'glimpse suppression add --account ID --email EMAIL [--json]',
    options: { account: { type: 'string' }, email: { type: 'string' } },
    async run({ values, db }) {
      const { suppression } = await suppressPerson(db('playbook'), await existingAccountId(values, db('gateway')), emailOf(values), { maxPerAccount: caps().suppressions });
      return suppression;
    },
    human: (r) => `suppressed: ${(r as { email: string }).email} (${(r as { stoppedEnrollments: number }).stoppedEnrollments} active enrollment(s) stopped)`,
  },
  {
    words: ['suppression', 'list'],
    summary: "list an account's suppressed people, newest first (the first 200, or every one with --all)",
    usage: 'glimpse suppression list --account ID [--all] [--json]',
    options: { account: { type: 'string' }, all: { type: 'boolean' } },
    async run({ values, db, io }) {
      const accountId = await existingAccountId(values, db('gateway'));
      const items = [];
      let after: { at: Date; id: string } | null = null;
      do {
        const page: Awaited<ReturnType<typeof suppressionPage>> = await suppressionPage(db('playbook'), accountId, { limit: 200, after });
        items.push(...page.items);
        after = page.next;
      } while (after && values.all);
      if (after) io.stderr('note: the first 200 suppressed people; --all lists every one\n');
      return items;
    },
    human: (r) => table(r as Record<string, unknown>[], ['email', 'createdAt']),
  },
  {
    words: ['suppression', 'remove'],
    summary: 'lift a suppression',
    usage: 'glimpse suppression remove --account ID --email EMAIL [--json]',
    options: { account: { type: 'string' }, email: { type: 'string' } },
    async run({ values, db }) {
      await unsuppressPerson(db('playbook'), await existingAccountId(values, db('gateway')), emailOf(values));
      return { removed: true };
    },
    human: () => 'suppression lifted',
  },
];

function emailOf(values: Record<string, unknown>): string {
  const email = normalizeEmail(required(values as never, 'email'));
  if (email === null) throw new AppError('invalid_request', 'email must be a valid email address');
  return email;
}
