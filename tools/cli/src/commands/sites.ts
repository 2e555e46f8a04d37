// sites create / list / delete: through a gateway's operator API acting for the account
// (/operator/accounts/ID/account/sites), the same rules and cap (SITES_PER_ACCOUNT) as /account/sites;
// a deletion has the gateway ask the visitors service to delete the site's data first.
import { required, table, type Command, type CommandContext } from '../command.js';
import { accountId, OPERATOR_HELP, urlOption } from '../operator-command.js';
import { configuredApi } from '../operator-api.js';

const list = (values: CommandContext['values'], name: string): string[] => {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
};

/** A site as the API answers it (snake_case fields), as the CLI has always printed it. */
interface SiteAnswer {
  id: string;
  name: string;
  key: string;
  origins: string[];
  track_events: string[];
  capture_forms: boolean;
  consent: string;
  honor_gpc: boolean;
  identity_verification?: string;
  /** Only in the creation answer: shown once. */
  identity_secret?: string;
  createdAt: string;
}

const summary = (s: SiteAnswer) => ({
  id: s.id,
  name: s.name,
  key: s.key,
  origins: s.origins,
  trackEvents: s.track_events,
  captureForms: s.capture_forms,
  consent: s.consent,
  honorGpc: s.honor_gpc,
  identityVerification: s.identity_verification,
  createdAt: s.createdAt,
});

export const siteCommands: Command[] = [
  {
    words: ['sites', 'create'],
    summary: 'create a site: its publishable key (glp_…) for the tag, its origins, allowed track names and identification settings',
    usage: `glimpse sites create --account ID --name NAME --origin URL [--origin URL…] [--track-event NAME…] [--capture-forms] [--consent implied|required] [--no-honor-gpc] [--identity-verification off|optional|required] [--url URL] [--json]\n\nPrints the site's identity secret once (the site's server signs identify calls with it).\nHeld to the gateway's SITES_PER_ACCOUNT, as on POST /account/sites.\n\nPOST /operator/accounts/ID/account/sites. ${OPERATOR_HELP}`,
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      origin: { type: 'string', multiple: true },
      'track-event': { type: 'string', multiple: true },
      'capture-forms': { type: 'boolean' },
      consent: { type: 'string' },
      'no-honor-gpc': { type: 'boolean' },
      'identity-verification': { type: 'string' },
      ...urlOption,
    },
    async run({ values }) {
      const body = {
        name: required(values, 'name'),
        origins: list(values, 'origin'),
        track_events: list(values, 'track-event'),
        ...(values['capture-forms'] === true ? { capture_forms: true } : {}),
        ...(values.consent !== undefined ? { consent: values.consent } : {}),
        ...(values['no-honor-gpc'] === true ? { honor_gpc: false } : {}),
        ...(values['identity-verification'] !== undefined ? { identity_verification: values['identity-verification'] } : {}),
      };
      const site = (await configuredApi(values).forAccount(accountId(values), 'POST', '/sites', body)) as SiteAnswer;
      return { id: site.id, key: site.key, identitySecret: site.identity_secret };
    },
    human: (r) => {
      const { id, key, identitySecret } = r as { id: string; key: string; identitySecret?: string };
      const secret = identitySecret
        ? `identity secret: ${identitySecret} (shown once: keep it on the site's server, which signs identify calls with it)\n`
        : '';
      return `site created: ${id}\nkey: ${key}\n${secret}install: <script async src="{gateway}/g.js" data-site="${key}"></script> (the console and GET /account/sites/${id} give the snippet with its SRI hash)`;
    },
  },
  {
    words: ['sites', 'list'],
    summary: "an account's sites, newest first",
    usage: `glimpse sites list --account ID [--url URL] [--json]\n\nGET /operator/accounts/ID/account/sites. ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const { items } = (await configuredApi(values).forAccount(accountId(values), 'GET', '/sites')) as { items: SiteAnswer[] };
      return { items: items.map(summary) };
    },
    human: (r) =>
      table((r as { items: Record<string, unknown>[] }).items, [
        'id',
        'name',
        'key',
        'origins',
        'trackEvents',
        'captureForms',
        'consent',
        'honorGpc',
        'identityVerification',
      ]),
  },
  {
    words: ['sites', 'delete'],
    summary: "delete a site: its key stops collecting; the visitors service deletes the site's visitors and traffic",
    usage: `glimpse sites delete --account ID --site ID [--url URL] [--json]\n\nDELETE /operator/accounts/ID/account/sites/SITE_ID (a 503 from the visitors service keeps the site: retry). ${OPERATOR_HELP}`,
    options: { account: { type: 'string' }, site: { type: 'string' }, ...urlOption },
    async run({ values }) {
      const id = required(values, 'site');
      await configuredApi(values).forAccount(accountId(values), 'DELETE', `/sites/${encodeURIComponent(id)}`);
      return { id, deleted: true };
    },
    human: (r) => `site ${(r as { id: string }).id} deleted, with its visitors and traffic`,
  },
];
