/**
 * What a delivery carries (seed "Events" and "Authentication" 4):
 *
 * - the body: the seed's envelope `{id, code, created_at, webhook_id, data}`;
 * - Standard Webhooks headers, made by the npm package `standardwebhooks`:
 *   `webhook-id` (the event id: the same on every attempt and redelivery, the
 *   receiver's deduplication key), `webhook-timestamp` (unix seconds of this attempt),
 *   `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`), keyed with
 *   the endpoint's secret (`whsec_<base64 key>`, chosen by the integrator at
 *   registration, so a receiver verifies with `new Webhook(secret).verify(body, headers)`);
 * - `Authorization: Bearer <JWT>` (the seed's sample delivery carries one): an HS256 JWT
 *   keyed with the same key, for receivers or gateways that check bearer tokens.
 *   Claims: `iss` `wallet-service`, `sub` the business id, `aud` the endpoint URL, `jti`
 *   the event id, `iat`, `exp` (`iat` + 300 s, the Standard Webhooks tolerance),
 *   `body_sha256` (base64url SHA-256 of the exact body). Bound to the body and short
 *   lived, it authenticates the same things as the signature; it holds no secret.
 *   (The two MACs cannot stand in for each other: a JWT signing input has exactly one
 *   dot, a Standard Webhooks one at least two.)
 */
import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { Webhook } from 'standardwebhooks';

export interface DeliveryMessage {
  eventId: string;
  code: string;
  createdAt: Date;
  endpointId: string;
  businessId: string;
  url: string;
  data: unknown;
}

/** The envelope as sent (JSON text; the signature covers these exact bytes). */
export function envelopeBody(m: DeliveryMessage): string {
  return JSON.stringify({ id: m.eventId, code: m.code, created_at: m.createdAt.toISOString(), webhook_id: m.endpointId, data: m.data });
}

/** The HMAC key of an endpoint secret (`whsec_` + base64), as `standardwebhooks` reads it. */
export function signingKey(secret: string): Uint8Array {
  return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
}

/** A secret's signing keys: the Standard Webhooks signer and the JWT's HMAC key. */
export interface Signer {
  webhook: Webhook;
  jwtKey: CryptoKey;
}

/**
 * The signing keys of endpoint secret `secret` (`whsec_` + base64). Made once per
 * endpoint and kept by the delivery worker (./delivery.ts): decoding the secret and
 * importing the JWT's key for every delivery was a fifth of the CPU of sending one.
 */
export async function signerFor(secret: string): Promise<Signer> {
  const jwtKey = await crypto.subtle.importKey('raw', new Uint8Array(signingKey(secret)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return { webhook: new Webhook(secret), jwtKey };
}

/** Headers of one attempt at `now` of `body`, signed with the endpoint's `signer` (signerFor). */
export async function deliveryHeaders(m: DeliveryMessage, body: string, { webhook, jwtKey }: Signer, now: Date): Promise<Record<string, string>> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const bearer = await new SignJWT({ body_sha256: createHash('sha256').update(body).digest('base64url') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('wallet-service')
    .setSubject(m.businessId)
    .setAudience(m.url)
    .setJti(m.eventId)
    .setIssuedAt(timestamp)
    .setExpirationTime(timestamp + 300)
    .sign(jwtKey);
  return {
    'content-type': 'application/json',
    'user-agent': 'wallet-service-webhooks/1',
    'webhook-id': m.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhook.sign(m.eventId, now, body),
    authorization: `Bearer ${bearer}`,
  };
}
