/**
 * Bearer access tokens: HS256 JWTs (RFC 7519) signed and verified with `jose`.
 * Claims: `sub` client id, `kind` PLATFORM|BUSINESS, `bid` business id or null,
 * `iss` wallet-service, `exp` issue time + TTL seconds.
 */
import { SignJWT, jwtVerify } from 'jose';
import { AppError } from '../kernel/errors.js';
import type { Principal } from '../kernel/services.js';

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
 * Verifies a bearer JWT; returns its principal and `exp` (seconds). Throws
 * AppError UNAUTHORIZED with `WWW-Authenticate: Bearer …, error="invalid_token"`
 * (RFC 6750 §3) when it is expired, wrongly signed or its claims are malformed.
 */
async function verifyToken(token: string, key: Uint8Array): Promise<{ principal: Principal; exp?: number }> {
  try {
    const { payload } = await jwtVerify(token, key, { issuer: ISSUER, algorithms: ['HS256'] });
    const kind = payload.kind;
    if ((kind !== 'PLATFORM' && kind !== 'BUSINESS') || typeof payload.sub !== 'string') throw new Error('bad claims');
    const businessId = typeof payload.bid === 'string' ? payload.bid : null;
    if (kind === 'BUSINESS' && !businessId) throw new Error('bad claims');
    return { principal: Object.freeze({ kind, clientId: payload.sub, businessId }), exp: payload.exp };
  } catch {
    throw new AppError('UNAUTHORIZED', 'The bearer token is invalid or expired.', {
      headers: { 'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="The token is invalid or expired"` },
    });
  }
}

/**
 * Verifies `Authorization: Bearer <jwt>` header values, keeping a bounded
 * in-memory cache of tokens already verified: a token is a pure function of
 * its signed claims, so a token seen valid stays valid, with the same
 * principal, until its `exp` (jose's rule: expired once `exp` ≤ now). Only
 * valid tokens are cached, at most `maxEntries` (oldest dropped first); each
 * API node keeps its own (a cache, not state).
 */
export class TokenVerifier {
  private readonly cache = new Map<string, { principal: Principal; expiresAtMs: number }>();

  constructor(
    private readonly key: Uint8Array,
    private readonly maxEntries = 10_000,
  ) {}

  /** How many tokens are cached. */
  get size(): number {
    return this.cache.size;
  }

  /**
   * The principal of an `Authorization` header value. Throws AppError
   * UNAUTHORIZED when missing, malformed, expired or wrongly signed, with
   * `WWW-Authenticate: Bearer` (RFC 6750 §3: `error="invalid_token"` when a
   * token was sent, no error code when none was).
   */
  async verify(header: string | undefined, now = Date.now()): Promise<Principal> {
    const match = /^Bearer ([A-Za-z0-9_\-.]+)$/.exec(header ?? '');
    if (!match) {
      const sent = /^Bearer\s/i.test(header ?? '');
      throw new AppError('UNAUTHORIZED', 'A bearer token is required: Authorization: Bearer <ACCESS_TOKEN>.', {
        headers: { 'WWW-Authenticate': sent ? `Bearer ${REALM}, error="invalid_token"` : `Bearer ${REALM}` },
      });
    }
    const token = match[1];
    const hit = this.cache.get(token);
    if (hit && hit.expiresAtMs > now) return hit.principal;
    if (hit) this.cache.delete(token);
    const { principal, exp } = await verifyToken(token, this.key);
    if (typeof exp === 'number') {
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(token, { principal, expiresAtMs: exp * 1000 });
    }
    return principal;
  }
}
