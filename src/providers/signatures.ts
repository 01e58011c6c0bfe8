/**
 * Signed provider callbacks (and the payout rail's, src/payouts/). A provider signs each callback with its own secret:
 * header `X-Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * (several `v1=` while a secret rotates; the same shape as Stripe's and the
 * Standard Webhooks scheme's timestamped HMAC). The receiver checks the HMAC in
 * constant time over the exact bytes received and refuses a timestamp more than
 * 5 minutes from its own clock (real time, not a business's sandbox clock);
 * replayed event ids are refused where the event is applied.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../kernel/serviceConfig.js';
import { keptSecret } from '../kernel/secrets/settings.js';
import { AppError } from '../kernel/errors.js';

/** Who signs callbacks to the service: the identity verification and screening providers, and the payout rail. */
export type CallbackSigner = 'IDENTITY_VERIFICATION' | 'SCREENING' | 'PAYOUT_RAIL';

const SECRETS: Record<CallbackSigner, { kept: string; configured: (config: Config) => string | undefined }> = {
  IDENTITY_VERIFICATION: { kept: 'identity_provider_callback_secret', configured: (c) => c.identityProviderCallbackSecret },
  SCREENING: { kept: 'screening_provider_callback_secret', configured: (c) => c.screeningProviderCallbackSecret },
  PAYOUT_RAIL: { kept: 'payout_rail_callback_secret', configured: (c) => c.payoutRailCallbackSecret },
};

export const SIGNATURE_HEADER = 'X-Provider-Signature';
/** Oldest (and furthest in the future) a signature's timestamp may be, seconds. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * The secret that signs `signer`'s callbacks: from the configuration, else generated once
 * and kept (the sandbox providers'; the payout rail's is configured whenever a rail is).
 */
export function callbackSecret(db: Knex, config: Config, signer: CallbackSigner): Promise<Buffer> {
  return keptSecret(db, SECRETS[signer].kept, SECRETS[signer].configured(config));
}

const hmac = (secret: Buffer, timestamp: string, rawBody: string): Buffer =>
  createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();

/** The signature header value for `rawBody` at `timestamp` (unix seconds). */
export function signCallback(secret: Buffer, rawBody: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${hmac(secret, String(timestamp), rawBody).toString('hex')}`;
}

/**
 * Checks `header` over `rawBody` with `secret` at `nowSeconds`. Throws 401
 * INVALID_SIGNATURE (missing, malformed or wrong) or SIGNATURE_EXPIRED
 * (timestamp more than SIGNATURE_TOLERANCE_SECONDS away).
 */
export function verifyCallbackSignature(header: string | undefined, rawBody: string, secret: Buffer, nowSeconds = Math.floor(Date.now() / 1000)): void {
  const challenge = { headers: { 'WWW-Authenticate': `Signature realm="provider-callbacks", headers="${SIGNATURE_HEADER}"` } };
  const parts = (header ?? '').split(',').map((p) => p.trim().split('='));
  const timestamp = parts.find(([k]) => k === 't')?.[1] ?? '';
  const signatures = parts.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v ?? '')).map(([, v]) => Buffer.from(v, 'hex'));
  if (!/^[0-9]{1,12}$/.test(timestamp) || !signatures.length) {
    throw new AppError('INVALID_SIGNATURE', `A valid ${SIGNATURE_HEADER} header (t=<unix seconds>,v1=<hex HMAC-SHA256>) is required.`, challenge);
  }
  const expected = hmac(secret, timestamp, rawBody);
  if (!signatures.some((s) => timingSafeEqual(s, expected))) {
    throw new AppError('INVALID_SIGNATURE', 'The signature does not match the body.', challenge);
  }
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
    throw new AppError('SIGNATURE_EXPIRED', `The signature's timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from now.`, challenge);
  }
}
