// URLs as the interface gives them (format uri): absolute http(s), in WHATWG form (percent-encoded,
// so a valid RFC 3986 URI). Data vendors store profile URLs without a scheme (`pronet.example/in/x`);
// those are read as https.
export function absoluteHttpUrl(value: string | null | undefined): string | undefined {
  const given = value?.trim();
  if (!given) return undefined;
  const candidate = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : `https://${given.replace(/^\/+/, '')}`;
  if (!URL.canParse(candidate)) return undefined;
  const url = new URL(candidate);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname.includes('.')) return undefined;
  return url.href;
}
