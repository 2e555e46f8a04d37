// An account's alert settings: the time zone and local hour of its segments' daily digests (UTC, 9
// without a row).
import type { Db } from '@glimpse/db/visitors';

export interface AlertSettings {
  time_zone: string;
  digest_hour: number;
}

export const DEFAULT_ALERT_SETTINGS: AlertSettings = { time_zone: 'UTC', digest_hour: 9 };

export async function alertSettingsOf(db: Db, accountId: string): Promise<AlertSettings> {
  const rows = await db.$queryRawUnsafe<AlertSettings[]>(`SELECT time_zone, digest_hour FROM alert_settings WHERE account_id = $1::uuid`, accountId);
  return rows[0] ?? DEFAULT_ALERT_SETTINGS;
}

export async function saveAlertSettings(db: Db, accountId: string, s: AlertSettings): Promise<AlertSettings> {
  const rows = await db.$queryRawUnsafe<AlertSettings[]>(
    `INSERT INTO alert_settings (account_id, time_zone, digest_hour) VALUES ($1::uuid, $2, $3::int)
     ON CONFLICT (account_id) DO UPDATE SET time_zone = EXCLUDED.time_zone, digest_hour = EXCLUDED.digest_hour, updated_at = now()
     RETURNING time_zone, digest_hour`,
    accountId,
    s.time_zone,
    s.digest_hour,
  );
  return rows[0]!;
}
