// The rules of a site: its body (name, origins, allowed track names, identification settings),
// origins in one spelling, its publishable key and the install snippet. The schemas are @glimpse/api's (the OpenAPI document's).
import { randomBytes } from 'node:crypto';
import {
  siteCreateSchema,
  siteUpdateSchema,
  SITE_KEY_PATTERN,
  SITE_SETTING_DEFAULTS,
  type IdentityVerificationMode,
  type SiteConsentMode,
  type SiteCreateInput,
  type SiteUpdateInput,
} from '@glimpse/api';
import { AppError } from '@glimpse/errors';
import type { z } from 'zod';

export interface SiteFields {
  name: string;
  origins: string[];
  trackEvents: string[];
  captureForms: boolean;
  consent: SiteConsentMode;
  honorGpc: boolean;
  /** The query keys a page view's URL keeps besides utm_*. */
  queryKeys: string[];
  identityVerification: IdentityVerificationMode;
  /** New visitor ids per UTC day; null takes the gateway's default. */
  newVisitorsPerDay: number | null;
}

/**
 * An origin as browsers send it in the Origin header: scheme, lower-case host, port only when not
 * the scheme's default. Null for anything else (another scheme, a path, a query, credentials).
 */
export function normalizeOrigin(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/' || url.hostname === '') return null;
  // A written path ("https://a.com/x") is refused above; "https://a.com/" and "https://a.com" both pass.
  if (/^[a-z]+:\/\/[^/]+\/./i.test(input.trim())) return null;
  return url.origin;
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 1 ? ` (${issue.path.join('.')})` : '';
  throw new AppError('invalid_request', `${issue.message}${where}`);
}

function origins(given: string[]): string[] {
  const out = new Set<string>();
  for (const o of given) {
    const origin = normalizeOrigin(o);
    if (origin === null)
      throw new AppError('invalid_request', `"${o.slice(0, 100)}" is not an origin: give scheme://host[:port], http or https, without a path`);
    out.add(origin);
  }
  return [...out];
}

export function parseSiteCreate(body: unknown): SiteFields {
  const input: SiteCreateInput = parse(siteCreateSchema, body);
  return {
    name: input.name,
    origins: origins(input.origins),
    trackEvents: [...new Set(input.track_events ?? [])],
    captureForms: input.capture_forms ?? SITE_SETTING_DEFAULTS.capture_forms,
    consent: input.consent ?? SITE_SETTING_DEFAULTS.consent,
    honorGpc: input.honor_gpc ?? SITE_SETTING_DEFAULTS.honor_gpc,
    queryKeys: [...new Set(input.query_keys ?? [])],
    identityVerification: input.identity_verification ?? 'off',
    newVisitorsPerDay: input.new_visitors_per_day ?? null,
  };
}

export function parseSiteUpdate(body: unknown): Partial<SiteFields> {
  const input: SiteUpdateInput = parse(siteUpdateSchema, body);
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.origins !== undefined ? { origins: origins(input.origins) } : {}),
    ...(input.track_events !== undefined ? { trackEvents: [...new Set(input.track_events)] } : {}),
    ...(input.capture_forms !== undefined ? { captureForms: input.capture_forms } : {}),
    ...(input.consent !== undefined ? { consent: input.consent } : {}),
    ...(input.honor_gpc !== undefined ? { honorGpc: input.honor_gpc } : {}),
    ...(input.query_keys !== undefined ? { queryKeys: [...new Set(input.query_keys)] } : {}),
    ...(input.identity_verification !== undefined ? { identityVerification: input.identity_verification } : {}),
    ...(input.new_visitors_per_day !== undefined ? { newVisitorsPerDay: input.new_visitors_per_day } : {}),
  };
}

/** `glp_` and 32 url-safe characters (24 random bytes): public by design, it can only collect. */
export function generateSiteKey(): string {
  return `glp_${randomBytes(24).toString('base64url')}`;
}

export function isSiteKey(value: unknown): value is string {
  return typeof value === 'string' && SITE_KEY_PATTERN.test(value);
}

const escapeAttribute = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The text without its trailing '/'s (by a scan: the base URL may come from the request's Host). */
function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return text.slice(0, end);
}

/**
 * The install snippet: the async per-site script, which carries the site's settings (so a change in
 * the console reaches every page without editing it); no inline script. `integrity` is the generic
 * /g.js's, for the older snippet: the per-site script changes with its settings, so it takes none.
 */
export function siteSnippet(baseUrl: string, key: string, integrity: string): { html: string; integrity: string } {
  const src = `${withoutTrailingSlashes(baseUrl)}/s/${key}.js`;
  return { html: `<script async src="${escapeAttribute(src)}"></script>`, integrity };
}
