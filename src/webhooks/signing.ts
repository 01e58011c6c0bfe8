/**
 * What a delivery carries (seed "Events" and "Authentication" 4):
 *
 * - the body: the seed's envelope `{id, code, created_at, webhook_id, data}`;
 * - Standard Webhooks headers (the Standard Webhooks specification, "Signature scheme"):
 *   `webhook-id` (the event id: the same on every attempt and redelivery, the
 *   receiver's deduplication key), `webhook-timestamp` (unix seconds of this attempt),
 *   `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`), keyed with
 *   the endpoint's secret (`whsec_<base64 key>`, chosen by the integrator at
 *   registration, so a receiver verifies with the npm package `standardwebhooks`:
 *   `new Webhook(secret).verify(body, headers)`);
 * - `Authorization: Bearer <JWT>` (the seed's sample delivery carries one): an HS256 JWT
 *   keyed with the same key, for receivers or gateways that check bearer tokens.
 *   Claims: `iss` `wallet-service`, `sub` the business id, `aud` the endpoint URL, `jti`
 *   the event id, `iat`, `exp` (`iat` + 300 s, the Standard Webhooks tolerance),
 *   `body_sha256` (base64url SHA-256 of the exact body). Bound to the body and short
 *   lived, it authenticates the same things as the signature; it holds no secret.
 *   (The two MACs cannot stand in for each other: a JWT signing input has exactly one
 *   dot, a Standard Webhooks one at least two.)
 */
import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export interface DeliveryMessage {
  eventId: string;
  code: string;
  createdAt: Date;
  endpointId: string;
  businessId: string;
  url: string;
  /** The event's data as the endpoint's API version renders it. */
  data: unknown;
  /** The endpoint's API version, which `data` is rendered at (absent: not said). */
  apiVersion?: string;
}

/** The envelope as sent (JSON text; the signature covers these exact bytes). */
export function envelopeBody(m: DeliveryMessage): string {
  const version = m.apiVersion === undefined ? {} : { api_version: m.apiVersion };
  return JSON.stringify({ id: m.eventId, code: m.code, created_at: m.createdAt.toISOString(), webhook_id: m.endpointId, ...version, data: m.data });
}

/** The HMAC key of an endpoint secret (`whsec_` + base64), as `standardwebhooks` reads it. */
export function signingKey(secret: string): Uint8Array {
  return Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
}

/** A secret's signing key: the HMAC key of both the Standard Webhooks signature and the JWT. */
export interface Signer {
  key: KeyObject;
}

/**
 * The signing key of endpoint secret `secret` (`whsec_` + base64). Made once per
 * endpoint and kept by the delivery worker (./delivery.ts): decoding the secret for
 * every delivery would be a large share of the CPU of sending one. Throws Error for a
 * secret that decodes to no key.
 */
export function signerFor(secret: string): Signer {
  const key = signingKey(secret);
  if (key.length === 0) throw new Error('a webhook secret must hold a key');
  return { key: createSecretKey(key) };
}

/** The JWS protected header of every delivery JWT, base64url-encoded once. */
const JWT_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * An HS256 JWT (RFC 7519) of `claims`, in the JWS compact serialization (RFC 7515 §7.1):
 * `base64url(header) "." base64url(claims) "." base64url(HMAC-SHA256(key, the two before))`.
 * Made with node:crypto's HMAC, not `jose`, whose signing goes through WebCrypto's
 * asynchronous jobs and costs the event loop far more per token: at thousands of
 * deliveries a second, a large share of the CPU of sending them. `jose` verifies these tokens in
 * the tests (test/webhooks/webhookSigning.test.ts checks the bytes are those `jose` signs).
 */
export function hs256Jwt(claims: Record<string, unknown>, key: KeyObject): string {
  const input = `${JWT_HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

/**
 * The Standard Webhooks signature of message `id` sent at `timestamp` (unix seconds) with
 * body `body`: `v1,` + base64(HMAC-SHA256(key, "id.timestamp.body")) (the specification's
 * "Signature scheme", version 1). Made with node:crypto's HMAC rather than
 * `standardwebhooks`' `sign`, whose SHA-256 is JavaScript and far slower, which counts at
 * thousands of deliveries a second. `standardwebhooks` verifies these
 * signatures in the tests (test/webhooks/webhookSigning.test.ts checks the bytes are those it signs).
 */
export function webhookSignature(id: string, timestamp: number, body: string, key: KeyObject): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * Headers of one attempt at `now` of `body`, signed with the endpoint's `signer` (signerFor).
 * During a secret rotation's overlap (`previous`: the secret replaced, still signing),
 * `webhook-signature` carries both signatures, space-separated, the current one first
 * (Standard Webhooks, "Signature scheme": a receiver accepts the message when any one of
 * them verifies), so a receiver that still holds the previous secret keeps verifying.
 * The bearer JWT is keyed with the current secret only.
 */
export function deliveryHeaders(m: DeliveryMessage, body: string, { key }: Signer, now: Date, previous?: Signer | null): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const bearer = hs256Jwt(
    {
      body_sha256: createHash('sha256').update(body).digest('base64url'),
      iss: 'wallet-service',
      sub: m.businessId,
      aud: m.url,
      jti: m.eventId,
      iat: timestamp,
      exp: timestamp + 300,
    },
    key,
  );
  return {
    'content-type': 'application/json',
    'user-agent': 'wallet-service-webhooks/1',
    'webhook-id': m.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': previous
      ? `${webhookSignature(m.eventId, timestamp, body, key)} ${webhookSignature(m.eventId, timestamp, body, previous.key)}`
      : webhookSignature(m.eventId, timestamp, body, key),
    authorization: `Bearer ${bearer}`,
  };
}
