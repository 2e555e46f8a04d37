// An operator's word on the type of a network (visitors.network_type_overrides): an autonomous
// system by its number or an organisation by its name, set, listed and removed from the CLI. Every
// replica picks a change up at its next poll of the IP data (ip-data.ts) and types those ranges anew.
import pg from 'pg';
import { AppError } from '@glimpse/errors';
import { isNetworkType, NETWORK_TYPES, type NetworkType } from '@glimpse/validation';

export interface NetworkTypeOverride {
  kind: 'asn' | 'org';
  value: string;
  type: NetworkType;
  createdAt: Date;
}

/** The override's key: an AS number ("AS7922" or "7922"), or an organisation name lower-cased and trimmed. */
export function overrideKey(target: { asn?: string; org?: string }): { kind: 'asn' | 'org'; value: string } {
  if ((target.asn === undefined) === (target.org === undefined)) throw new AppError('invalid_request', 'name one network: --asn NUMBER or --org NAME');
  if (target.asn !== undefined) {
    const m = /^(?:AS)?(\d{1,10})$/i.exec(target.asn.trim());
    if (!m || Number(m[1]) > 4_294_967_295) throw new AppError('invalid_request', 'asn must be an AS number such as 7922 or AS7922');
    return { kind: 'asn', value: String(Number(m[1])) };
  }
  const org = target.org!.trim().toLowerCase();
  if (org.length === 0 || org.length > 200 || org.includes('\u0000'))
    throw new AppError('invalid_request', 'org must be an organisation name of 1 to 200 characters');
  return { kind: 'org', value: org };
}

async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'glimpse-network-types' });
  client.on('error', () => {});
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function setNetworkTypeOverride(databaseUrl: string, target: { asn?: string; org?: string }, type: string): Promise<NetworkTypeOverride> {
  if (!isNetworkType(type)) throw new AppError('invalid_request', `type must be one of ${NETWORK_TYPES.join(', ')}`);
  const key = overrideKey(target);
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<NetworkTypeOverride>(
      `INSERT INTO network_type_overrides (kind, value, type) VALUES ($1, $2, $3)
       ON CONFLICT (kind, value) DO UPDATE SET type = EXCLUDED.type, created_at = now()
       RETURNING kind, value, type, created_at AS "createdAt"`,
      [key.kind, key.value, type],
    );
    return rows[0]!;
  });
}

export function listNetworkTypeOverrides(databaseUrl: string): Promise<NetworkTypeOverride[]> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<NetworkTypeOverride>(
      `SELECT kind, value, type, created_at AS "createdAt" FROM network_type_overrides ORDER BY kind, value`,
    );
    return rows;
  });
}

export function deleteNetworkTypeOverride(databaseUrl: string, target: { asn?: string; org?: string }): Promise<{ deleted: boolean }> {
  const key = overrideKey(target);
  return withClient(databaseUrl, async (client) => {
    const { rowCount } = await client.query('DELETE FROM network_type_overrides WHERE kind = $1 AND value = $2', [key.kind, key.value]);
    if (!rowCount) throw new AppError('not_found', `no override of ${key.kind} ${key.value}`);
    return { deleted: true };
  });
}
