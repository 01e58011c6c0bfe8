/**
 * Bearer access tokens: HS256 JWTs (RFC 7519) signed and verified with `jose`.
 * Claims: `sub` client id, `kind` PLATFORM|BUSINESS, `bid` business id or null,
 * `iss` wallet-service, `exp` issue time + TTL seconds.
 */
import { SignJWT, jwtVerify } from 'jose';
import { AppError } from '../errors.js';
import type { Principal } from './operation.js';

const ISSUER = 'wallet-service';

/** Signs a token for `principal`, valid `ttlSeconds`. */
export async function issueToken(principal: Principal, key: Uint8Array, ttlSeconds: number): Promise<string> {
  return new SignJWT({ kind: principal.kind, bid: principal.businessId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(principal.clientId)
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(key);
}

const REALM = 'realm="wallet-service"';

/**
 * The principal of an `Authorization: Bearer <jwt>` header value.
 * Throws AppError UNAUTHORIZED when missing, malformed, expired or wrongly signed,
 * with `WWW-Authenticate: Bearer` (RFC 6750 §3: `error="invalid_token"` when a
 * token was sent, no error code when none was).
 */
export async function verifyBearer(header: string | undefined, key: Uint8Array): Promise<Principal> {
  const match = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(header ?? '');
  if (!match) {
    const sent = /^Bearer\s/i.test(header ?? '');
    throw new AppError('UNAUTHORIZED', 'A bearer token is required: Authorization: Bearer <ACCESS_TOKEN>.', {
      headers: { 'WWW-Authenticate': sent ? `Bearer ${REALM}, error="invalid_token"` : `Bearer ${REALM}` },
    });
  }
  try {
    const { payload } = await jwtVerify(match[1], key, { issuer: ISSUER, algorithms: ['HS256'] });
    const kind = payload.kind;
    if ((kind !== 'PLATFORM' && kind !== 'BUSINESS') || typeof payload.sub !== 'string') throw new Error('bad claims');
    const businessId = typeof payload.bid === 'string' ? payload.bid : null;
    if (kind === 'BUSINESS' && !businessId) throw new Error('bad claims');
    return { kind, clientId: payload.sub, businessId };
  } catch {
    throw new AppError('UNAUTHORIZED', 'The bearer token is invalid or expired.', {
      headers: { 'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="The token is invalid or expired"` },
    });
  }
}
