/**
 * Re-authentication of a portal session for a sensitive step: the documents mark an
 * operation `x-reauthentication: true` (always sensitive) or `x-reauthentication: { amount:
 * <pointer> }` (sensitive when the amount the pointer names in the request body is at or
 * above PORTAL_REAUTHENTICATION_AMOUNT), and a portal user's session then needs a TOTP code
 * of the last PORTAL_REAUTHENTICATION_MINUTES (`Principal.recentlyAuthenticated`). API keys
 * are never asked: they have no code to give. Used by the admission (./admission.ts) and
 * the operation mount (./openapi.ts, after the body is validated).
 */
import { Decimal } from 'decimal.js';
import { AppError } from '../kernel/errors.js';
import type { Principal } from '../kernel/services.js';

/**
 * The problem a session without a recent code gets: 403 FORBIDDEN whose detail names the
 * re-authentication operation (the portal, src/portal/assets/api.js, recognises it by that
 * name, asks for a code and sends the step again).
 */
function recentCodeNeeded(): AppError {
  return new AppError('FORBIDDEN', 'This step needs a recent code from your authenticator: re-authenticate with POST /portal-sessions/current/reauthentication, then try again.');
}

/** Throws 403 FORBIDDEN (recentCodeNeeded) when `principal` is a portal user whose last TOTP code is not recent. */
export function requireRecentCode(principal: Principal | null): void {
  if (principal?.userId && !principal.recentlyAuthenticated) throw recentCodeNeeded();
}

/**
 * The `amount` pointer of an operation's `x-reauthentication` value `marker` (undefined for
 * `true` or no marker). Throws when the marker is neither `true` nor `{ amount: <pointer> }`
 * with a pointer starting with `/`, so that a misspelt marker fails at start-up, never
 * leaves a movement unguarded.
 */
export function amountPointerOf(operationId: string, marker: unknown): string | undefined {
  if (marker === undefined || marker === true) return undefined;
  const pointer = (marker as { amount?: unknown } | null)?.amount;
  if (typeof pointer !== 'string' || !pointer.startsWith('/') || Object.keys(marker as object).length !== 1) {
    throw new Error(`operation ${operationId}: x-reauthentication must be true or { amount: <JSON pointer into the request body> }`);
  }
  return pointer;
}

/**
 * The sum of the amounts at `pointer` in `body`: a JSON pointer (RFC 6901, `~1` for `/` and
 * `~0` for `~`) in which a `*` token stands for every item of an array (a bulk payout's
 * `/items/*\/payout_amount`). Only values that are decimal strings count: any other value
 * is either refused by validation before this is called or, in a bulk payout, an item
 * rejected on its own that moves nothing.
 */
export function amountAt(body: unknown, pointer: string): Decimal {
  const tokens = pointer.split('/').slice(1).map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
  let values: unknown[] = [body];
  for (const token of tokens) {
    values = values.flatMap((v) => {
      if (token === '*' && Array.isArray(v)) return v;
      return v !== null && typeof v === 'object' && Object.hasOwn(v, token) ? [(v as Record<string, unknown>)[token]] : [];
    });
  }
  return values.reduce<Decimal>((sum, v) => (typeof v === 'string' && /^\d{1,30}(\.\d{1,30})?$/.test(v) ? sum.plus(v) : sum), new Decimal(0));
}

/**
 * Throws 403 FORBIDDEN (recentCodeNeeded) when a portal user without a recent code sends
 * `body` to an operation marked with the amount `pointer` and the amount there is at or
 * above `threshold` (PORTAL_REAUTHENTICATION_AMOUNT, a decimal string). Nothing is asked of
 * an API key or of a recent session.
 */
export function requireRecentCodeForAmount(principal: Principal | null, pointer: string, body: unknown, threshold: string): void {
  if (!principal?.userId || principal.recentlyAuthenticated) return;
  if (amountAt(body, pointer).gte(threshold)) throw recentCodeNeeded();
}
