/**
 * National ids at rest: sealed with AES-256-GCM (random 96-bit IV, format
 * `v1.<iv>.<tag>.<ciphertext>`, base64url) so a provider can be asked again
 * (the mobile number ownership check), and a keyed hash (HMAC-SHA256 over
 * `<business id>:<national id>`) for lookups and uniqueness within a business,
 * never comparable across businesses. Both keys are derived from
 * IDENTITY_DATA_KEY (generated once and kept in `settings` when unset). No
 * national id is ever logged or returned.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export interface IdentityKeys {
  seal: Buffer;
  index: Buffer;
}

/** The sealing and index keys derived from the identity data secret. */
export function identityKeys(secret: Buffer): IdentityKeys {
  const derive = (purpose: string) => createHmac('sha256', secret).update(purpose).digest();
  return { seal: derive('national-id-seal-v1'), index: derive('national-id-index-v1') };
}

/** The keyed hash of a business's customer's national id. */
export function nationalIdHash(keys: IdentityKeys, businessId: string, nationalId: string): string {
  return createHmac('sha256', keys.index).update(`${businessId}:${nationalId}`).digest('hex');
}

/** Seals a national id (AES-256-GCM). */
export function sealNationalId(keys: IdentityKeys, nationalId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keys.seal, iv);
  const sealed = Buffer.concat([cipher.update(nationalId, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), sealed].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** Opens a sealed national id; throws when it was altered or sealed with another key. */
export function openNationalId(keys: IdentityKeys, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1') throw new Error('unknown sealed national id format');
  const decipher = createDecipheriv('aes-256-gcm', keys.seal, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
