// sites create / list / delete: the gateway's sites (identity.sites, as glimpse_gateway) with the
// same rules as /account/sites; a deletion asks the visitors service to delete the site's data first.
import { AppError } from '@glimpse/errors';
import { createSite, createVisitorsClient, listSites, parseSiteCreate, removeSite, type SiteRecord } from '@glimpse/gateway';
import { required, table, type Command, type CommandContext } from '../command.js';
import { loadConfig } from '../config.js';
import { existingAccountId } from './lookups.js';

const list = (values: CommandContext['values'], name: string): string[] => {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
};

const summary = (s: SiteRecord) => ({
  id: s.id,
  name: s.name,
  key: s.key,
  origins: s.origins,
  trackEvents: s.trackEvents,
  captureForms: s.captureForms,
  consent: s.consent,
  honorGpc: s.honorGpc,
  createdAt: s.createdAt,
});

export const siteCommands: Command[] = [
  {
    words: ['sites', 'create'],
    summary: 'create a site: its publishable key (glp_…) for the tag, its origins, allowed track names and identification settings',
    usage:
      'glimpse sites create --account ID --name NAME --origin URL [--origin URL…] [--track-event NAME…] [--capture-forms] [--consent implied|required] [--no-honor-gpc] [--json]',
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      origin: { type: 'string', multiple: true },
      'track-event': { type: 'string', multiple: true },
      'capture-forms': { type: 'boolean' },
      consent: { type: 'string' },
      'no-honor-gpc': { type: 'boolean' },
    },
    async run({ values, db }) {
      const accountId = await existingAccountId(values, db('gateway'));
      const fields = parseSiteCreate({
        name: required(values, 'name'),
        origins: list(values, 'origin'),
        track_events: list(values, 'track-event'),
        ...(values['capture-forms'] === true ? { capture_forms: true } : {}),
        ...(values.consent !== undefined ? { consent: values.consent } : {}),
        ...(values['no-honor-gpc'] === true ? { honor_gpc: false } : {}),
      });
      const site = await createSite(db('gateway'), accountId, fields);
      return { id: site.id, key: site.key };
    },
    human: (r) => {
      const { id, key } = r as { id: string; key: string };
      return `site created: ${id}\nkey: ${key}\ninstall: <script async src="{gateway}/g.js" data-site="${key}"></script> (the console and GET /account/sites/${id} give the snippet with its SRI hash)`;
    },
  },
  {
    words: ['sites', 'list'],
    summary: "an account's sites, newest first",
    usage: 'glimpse sites list --account ID [--json]',
    options: { account: { type: 'string' } },
    async run({ values, db }) {
      const accountId = await existingAccountId(values, db('gateway'));
      return { items: (await listSites(db('gateway'), accountId)).map(summary) };
    },
    human: (r) => table((r as { items: Record<string, unknown>[] }).items, ['id', 'name', 'key', 'origins', 'trackEvents', 'captureForms', 'consent', 'honorGpc']),
  },
  {
    words: ['sites', 'delete'],
    summary: "delete a site: its key stops collecting; the visitors service deletes the site's visitors and traffic",
    usage: 'glimpse sites delete --account ID --site ID [--json]',
    options: { account: { type: 'string' }, site: { type: 'string' } },
    async run({ values, db }) {
      const accountId = await existingAccountId(values, db('gateway'));
      const id = required(values, 'site');
      const config = loadConfig();
      const visitors = createVisitorsClient({ baseUrl: config.VISITORS_URL, internalToken: config.INTERNAL_TOKEN, timeoutMs: 10_000, connections: 1 });
      try {
        const refused = await removeSite(db('gateway'), visitors, accountId, id);
        if (refused) throw new AppError('service_unavailable', `the visitors service answered ${refused.status}; the site is kept, retry later`);
      } finally {
        await visitors.close();
      }
      return { id, deleted: true };
    },
    human: (r) => `site ${(r as { id: string }).id} deleted, with its visitors and traffic`,
  },
];
