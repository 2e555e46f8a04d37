// The endpoints' signing secrets at rest: AES-256-GCM under a key derived (HKDF-SHA256) from
// WEBHOOKS_SECRET_KEY, a fresh 96-bit nonce each time, the endpoint's id as associated data (a
// sealed secret copied onto another endpoint's row does not open). Stored as
//   wsk1.<key id>.<base64url of nonce | ciphertext | tag>
// where the key id (8 hex digits of an HMAC of the derived key) says which key sealed it, so a
// change of WEBHOOKS_SECRET_KEY can keep the previous ones for opening (WEBHOOKS_SECRET_KEY_PREVIOUS)
// until every row is sealed again under the new one. A stored value that still starts with
// `whsec_` is a secret from before encryption: it opens as itself and is sealed by the start-up
// sweep (endpoint-repository's sealStoredSecrets).
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'wsk1';
const LEGACY = 'whsec_';

export interface SecretBox {
  /** The secret sealed for this endpoint under the current key. */
  seal(endpointId: string, secret: string): string;
  /** The secret of a stored value (sealed under any known key, or legacy clear text). */
  open(endpointId: string, stored: string): string;
  /** Whether a stored value is sealed under the current key (nothing to do). */
  isCurrent(stored: string): boolean;
  /** The current key's id (`wsk1.<id>.` starts every value sealed under it). */
  readonly currentKeyId: string;
}

interface Key {
  id: string;
  key: Buffer;
}

function deriveKey(material: string): Key {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(material, 'utf8'), Buffer.from('glimpse-webhooks'), Buffer.from('webhook signing secrets v1'), 32));
  return { id: createHmac('sha256', key).update('key id').digest('hex').slice(0, 8), key };
}

const aad = (endpointId: string) => Buffer.from(`glimpse-webhooks:endpoint:${endpointId}`, 'utf8');

export class UnknownSecretKeyError extends Error {
  constructor(keyId: string) {
    super(`a webhook secret is sealed under key ${keyId}, which is neither WEBHOOKS_SECRET_KEY nor among WEBHOOKS_SECRET_KEY_PREVIOUS`);
    this.name = 'UnknownSecretKeyError';
  }
}

export function createSecretBox(currentKey: string, previousKeys: string[] = []): SecretBox {
  const current = deriveKey(currentKey);
  const keys = new Map<string, Buffer>([[current.id, current.key]]);
  for (const material of previousKeys) {
    const k = deriveKey(material);
    if (!keys.has(k.id)) keys.set(k.id, k.key);
  }
  return {
    currentKeyId: current.id,
    seal(endpointId, secret) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, nonce);
      cipher.setAAD(aad(endpointId));
      const sealed = Buffer.concat([nonce, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}.${current.id}.${sealed.toString('base64url')}`;
    },
    open(endpointId, stored) {
      if (stored.startsWith(LEGACY)) return stored;
      const [prefix, keyId, body] = stored.split('.');
      if (prefix !== PREFIX || !keyId || !body) throw new Error('a stored webhook secret is neither sealed nor a whsec_ secret');
      const key = keys.get(keyId);
      if (!key) throw new UnknownSecretKeyError(keyId);
      const sealed = Buffer.from(body, 'base64url');
      if (sealed.length < 12 + 16) throw new Error('a sealed webhook secret is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      decipher.setAAD(aad(endpointId));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString('utf8');
    },
    isCurrent: (stored) => stored.startsWith(`${PREFIX}.${current.id}.`),
  };
}
