/**
 * Admission at the HTTP edge: who the caller is counted as (rate limits by client or by
 * address) and whether its token and key may call an operation (its access and the
 * document's `x-permission`, src/kernel/permissions.ts). Used by the operation mount
 * (./openapi.ts) before a request's body is looked at.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context as KoaContext } from 'koa';
import { AppError } from '../kernel/errors.js';
import { isPermission, PERMISSIONS, type Permission } from '../kernel/permissions.js';
import type { ApiOperation } from './apiTypes.js';
import type { Access } from './operation.js';
import type { Principal } from '../kernel/services.js';
import type { RateLimiter } from './rateLimit.js';
import { requireRecentCode } from './reauthentication.js';

/**
 * Who may call `operation` per its spec (403 FORBIDDEN for the wrong client
 * kind) and its document's `x-permission` (403 FORBIDDEN naming the permission a
 * business token's key or a user's role lacks; 403 FORBIDDEN for a step marked
 * `x-reauthentication: true` through a session without a recent TOTP code, ./reauthentication.ts:
 * a step marked with an amount is judged later, on its validated body), before the body is
 * looked at; counts an authenticated call against its
 * client's rate limit, the token request against its address's (429
 * RATE_LIMITED), and sets the RateLimit headers.
 */
export async function admit(
  spec: { access: Access; countsAddress?: true; countsSignIns?: true },
  operation: ApiOperation,
  principal: Principal | null,
  koa: KoaContext,
  rateLimiter: RateLimiter,
): Promise<void> {
  if (spec.access === 'platform' && principal?.kind !== 'PLATFORM') {
    throw new AppError('FORBIDDEN', 'This operation needs a platform token.');
  }
  if (spec.access === 'business' && principal?.kind !== 'BUSINESS') {
    throw new AppError('FORBIDDEN', 'This operation needs a business token.');
  }
  const needed = operation.permission;
  if (principal?.kind === 'BUSINESS' && isPermission(needed) && !principal.permissions?.includes(needed)) {
    throw new AppError('FORBIDDEN', `This operation needs the permission ${needed}, which ${principal.userId ? "this user's role" : 'this API key'} does not have.`);
  }
  // A sensitive step through a portal session needs a TOTP code given recently, so that an
  // unattended, signed-in browser cannot manage people, keys or the API version.
  if (operation.reauthentication) requireRecentCode(principal);
  if (principal) koa.set(await rateLimiter.client(principal.clientId));
  else if (spec.countsAddress) koa.set(await rateLimiter.address(koa.ip));
  // A sign-in is counted per address before its password is checked: past the limit it costs no hash.
  if (spec.countsSignIns) koa.set(await rateLimiter.signIn(koa.ip));
}

/** Methods whose requests change nothing (RFC 9110, section 9.2.1): they may be run again, and need no CSRF token. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Throws 403 FORBIDDEN when a state-changing request authenticated by a session cookie does
 * not send its session's CSRF token in `X-CSRF-Token` (compared by SHA-256, in constant
 * time, with `csrfTokenHash`): a page of another site can make the browser send the cookie,
 * never read the token (OWASP CSRF prevention, synchronizer token pattern).
 */
export function checkCsrf(koa: KoaContext, csrfTokenHash: string): void {
  if (SAFE_METHODS.has(koa.method)) return;
  const given = Buffer.from(createHash('sha256').update(koa.get('x-csrf-token'), 'utf8').digest('hex'));
  const expected = Buffer.from(csrfTokenHash);
  if (!koa.get('x-csrf-token') || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError('FORBIDDEN', 'A request with the session cookie that changes something must send the session\'s CSRF token in X-CSRF-Token.');
  }
}

/**
 * Runs `authenticate` after counting the request against its address's rate limit,
 * or, for a bearer token, counts it only when the token is refused: the 401 becomes
 * 429 past the address's limit (a valid token is counted per client instead).
 */
export async function authenticateCounted<T>(koa: KoaContext, rateLimiter: RateLimiter, before: boolean, authenticate: () => Promise<T>): Promise<T> {
  if (before) {
    koa.set(await rateLimiter.address(koa.ip));
    return authenticate();
  }
  try {
    return await authenticate();
  } catch (err) {
    koa.set(await rateLimiter.address(koa.ip));
    throw err;
  }
}

/**
 * `principal` with its client's current permissions (`lookup`; every permission without one).
 * Throws 401 UNAUTHORIZED (`invalid_token`) when the client has been revoked since its token was issued.
 */
export async function withPermissions(principal: Principal, lookup?: (clientId: string) => Promise<readonly Permission[] | null>): Promise<Principal> {
  const permissions = lookup ? await lookup(principal.clientId) : PERMISSIONS;
  if (!permissions) {
    throw new AppError('UNAUTHORIZED', 'The bearer token is invalid or expired.', {
      headers: { 'WWW-Authenticate': `Bearer realm="wallet-service", error="invalid_token", error_description="The API key has been revoked"` },
    });
  }
  return { ...principal, permissions };
}
