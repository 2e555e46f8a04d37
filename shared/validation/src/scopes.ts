// What an API key may be allowed to do. The names are part of the public API (@glimpse/api's
// schemas) and of the credentials @glimpse/auth stores; kept here so the public API need not
// depend on the credential store.

export const SCOPES = ['visitors:read', 'enrichment:read', 'account:manage'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
