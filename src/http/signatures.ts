/**
 * Security schemes verified by a provider's HMAC signature instead of a bearer
 * token (the provider callbacks; see src/providers/signatures.ts for the
 * format). An operation whose document security names one of these schemes has
 * access `signature`; `mountApi` registers a verifier per scheme, which checks
 * the header against the raw request body (as @koa/bodyparser keeps it in
 * `ctx.request.rawBody`) with the scheme's provider secret.
 */
import type { Context as KoaContext } from 'koa';
import type { ProviderName } from '../providers/call.js';
import { callbackSecret, SIGNATURE_HEADER, verifyCallbackSignature } from '../providers/signatures.js';
import type { Services } from '../kernel/services.js';

/** Signature security schemes of the documents, and whose secret signs each. */
export const SIGNATURE_SCHEMES: Record<string, Exclude<ProviderName, 'SMS'>> = {
  identityProviderSignature: 'IDENTITY_VERIFICATION',
  screeningProviderSignature: 'SCREENING',
};

/** The security handler of signature scheme `scheme`: resolves, or rejects with 401 INVALID_SIGNATURE / SIGNATURE_EXPIRED. */
export function signatureVerifier(scheme: string, services: Services): (koa: KoaContext) => Promise<{ scheme: string }> {
  const provider = SIGNATURE_SCHEMES[scheme];
  return async (koa) => {
    const secret = await callbackSecret(services.db, services.config, provider);
    const rawBody = (koa.request as { rawBody?: string }).rawBody ?? '';
    verifyCallbackSignature(koa.get(SIGNATURE_HEADER) || undefined, rawBody, secret);
    return { scheme };
  };
}
