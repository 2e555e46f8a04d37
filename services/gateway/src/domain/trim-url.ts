// What of a page's address reaches Kafka (the tag trims the same way; this holds for a hand-typed
// /collect too): a URL keeps its origin, path, utm_ parameters and the site's allowed query keys; a
// referrer its origin and path; a path nothing after '?' or '#'. Never a fragment, so reset or
// OAuth tokens in a query or fragment go no further than the gateway.

/** The address's origin, path and only the query parameters `keep` allows; undefined if it is no http(s) URL. */
function trimmed(address: string, keep: (key: string) => boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const kept = new URLSearchParams();
  for (const [key, value] of url.searchParams) if (keep(key)) kept.append(key, value);
  const search = kept.toString();
  return `${url.origin}${url.pathname}${search ? `?${search}` : ''}`;
}

/** A page view's URL: origin, path, the utm_ parameters and the site's query keys, in their order. */
export function trimPageUrl(url: string, queryKeys: readonly string[]): string | undefined {
  return trimmed(url, (key) => key.startsWith('utm_') || queryKeys.includes(key));
}

/** A referrer: its origin and path only (another site's query is none of ours). */
export function trimReferrer(referrer: string): string | undefined {
  return trimmed(referrer, () => false);
}

/** A path without its query or fragment: cut at the first '?' or '#' (a scan, not a regex); '/' if nothing is left. */
export function trimPath(path: string): string {
  let end = path.length;
  for (let i = 0; i < path.length; i += 1) {
    const c = path.charCodeAt(i);
    if (c === 0x3f || c === 0x23) {
      end = i;
      break;
    }
  }
  return path.slice(0, end) || '/';
}
