/**
 * Portal sessions: a portal user's sign-in (email, password and a TOTP code or a recovery
 * code) opens a server-side session, which the browser holds in an HttpOnly cookie and which
 * the HTTP layer takes as a credential of both APIs, beside the bearer token
 * (src/http/openapi.ts).
 *
 * The cookie is `session=<business id>.<32 random bytes, base64url>`; the table keeps the
 * SHA-256 of it, so a copy of the table opens no session. Each session has a CSRF token
 * (csrfTokenOf: a hash of the cookie, so a page that cannot read the cookie cannot make it,
 * and the session can answer it again after a reload) kept as its SHA-256 too: a
 * state-changing request with the cookie must send it in `X-CSRF-Token` (the synchronizer
 * pattern, checked by src/http/admission.ts).
 * A session ends after PORTAL_SESSION_IDLE_MINUTES without a request, at
 * PORTAL_SESSION_LIFETIME_MINUTES after the sign-in, on sign-out, on sign-out everywhere
 * (all the user's sessions), and with the user's removal; the user's role is read on every
 * request, so a role change reaches its sessions at once.
 *
 * A failed sign-in is one answer whatever failed (401 SIGN_IN_FAILED): an unknown email
 * checks the password against a dummy argon2id hash, so it takes the time a known one does.
 * LOCK_AFTER_FAILURES failures in a row lock the account for LOCK_MINUTES, during which even
 * the right credentials are answered the same 401. Sign-ins are also counted per address
 * by the HTTP layer before the handler runs (SIGN_IN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE,
 * src/http/rateLimit.ts), so that a flood from one address costs no password hash past the
 * limit; and the password checks of one address run one at a time on an instance, at least
 * CHECK_SPACING_MS apart (oneAtATime), so that those it lets through hold one of libuv's
 * hashing threads, never all four, for a fraction of the time, and a sign-in from elsewhere
 * does not queue behind them.
 */
import { createHash, randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { ROLES, permissionsOf } from '../kernel/permissions.js';
import type { SealingKeys } from '../kernel/secrets/sealing.js';
import type { Config } from '../kernel/serviceConfig.js';
import { SESSION_COOKIE, type SessionCredential } from '../kernel/services.js';
import { ARGON2_OPTIONS, newBusinessToken, recoveryCodeHash, tokenBusiness, tokenHash, totpStep, toUserView, type PortalUserRow } from './users.js';

type Schemas = components['schemas'];

/** Failed sign-ins in a row that lock an account. */
const LOCK_AFTER_FAILURES = 10;
/** How long a locked account stays locked (minutes). */
const LOCK_MINUTES = 15;

/** The account a sign-in concerns, once known (the audit's subject). */
export type SignInSubject = (subject: { businessId: string; userId: string }) => void;

let dummyHash: Promise<string> | undefined;
/** An argon2id hash of a random password, checked for an unknown email so it costs what a known one does. */
const dummy = (): Promise<string> => (dummyHash ??= argon2.hash(randomBytes(16).toString('hex'), ARGON2_OPTIONS));

const failed = (): AppError => new AppError('SIGN_IN_FAILED', 'The email, password or code is not right, or the account is locked for a while. Try again later.');

/** The `Set-Cookie` value of a session cookie with `value`, kept `maxAgeSeconds` (0: deleted). */
export function sessionCookie(value: string, maxAgeSeconds: number): string {
  // Secure: browsers accept it from http://localhost too, a secure context for them.
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;
}

/** The least time between two password checks of one address on an instance (ms): a flood's checks take a fraction of a core. */
const CHECK_SPACING_MS = 250;

/** Each address's last password check on this instance (the tail of its queue, spacing included). */
const checking = new Map<string, Promise<unknown>>();

/** Runs `work` once the previous password check of `address` on this instance has ended and CHECK_SPACING_MS passed. */
function oneAtATime<T>(address: string, work: () => Promise<T>): Promise<T> {
  const run = (checking.get(address) ?? Promise.resolve()).then(work);
  const tail = run.catch(() => undefined).then(() => new Promise((resolve) => setTimeout(resolve, CHECK_SPACING_MS).unref()));
  checking.set(address, tail);
  void tail.then(() => {
    if (checking.get(address) === tail) checking.delete(address);
  });
  return run;
}

/** The CSRF token of the session whose cookie value is `cookie` (base64url SHA-256 of it under a label of its own). */
export const csrfTokenOf = (cookie: string): string => createHash('sha256').update(`csrf-token:${cookie}`, 'utf8').digest('base64url');

/** Counts a failed sign-in of `row`, locking the account at LOCK_AFTER_FAILURES; throws SIGN_IN_FAILED. */
async function fail(db: Knex, row: PortalUserRow): Promise<never> {
  await db('portal_users')
    .where({ id: row.id, business_id: row.business_id })
    .update({
      failed_sign_ins: db.raw('CASE WHEN failed_sign_ins + 1 >= ? THEN 0 ELSE failed_sign_ins + 1 END', [LOCK_AFTER_FAILURES]),
      // The lock's end is a parameter: Citus refuses a non-immutable function inside CASE, and
      // the sign-in compares it with this instance's clock too.
      locked_until: db.raw('CASE WHEN failed_sign_ins + 1 >= ? THEN ?::timestamptz ELSE locked_until END', [LOCK_AFTER_FAILURES, new Date(Date.now() + LOCK_MINUTES * 60_000)]),
    });
  throw failed();
}

/**
 * Signs `req.email` in from `address` with `req.password` and `req.code` (TOTP) or
 * `req.recovery_code` (used up): opens a session and answers it with its cookie value
 * (`cookie`) and CSRF token. Throws 401 SIGN_IN_FAILED for anything wrong, alike (see the
 * module comment).
 */
export async function signIn(
  db: Knex,
  keys: SealingKeys,
  config: Config,
  req: Schemas['PortalSessionCreateRequest'],
  address: string,
  found: SignInSubject,
): Promise<{ session: Schemas['PortalSession']; cookie: string }> {
  const entry = (await db('portal_user_emails').where({ email: req.email.trim().toLowerCase() }).first()) as { business_id: string; user_id: string } | undefined;
  const row = entry ? ((await db('portal_users').where({ id: entry.user_id, business_id: entry.business_id }).first()) as PortalUserRow | undefined) : undefined;
  if (row) found({ businessId: row.business_id, userId: row.id });
  const usable = row && row.status === 'ACTIVE' && row.password_hash && !(row.locked_until && row.locked_until > new Date());
  const hash = usable ? row.password_hash! : await dummy();
  const passwordOk = await oneAtATime(address, () => argon2.verify(hash, req.password));
  if (!row || !usable) {
    if (row) await fail(db, row);
    throw failed();
  }
  let step: number | null = null;
  let recovery: string | null = null;
  if (req.code !== undefined) step = totpStep(keys, row, req.code);
  else if (req.recovery_code !== undefined) recovery = recoveryCodeHash(row, req.recovery_code);
  if (!passwordOk || (step === null && recovery === null)) return fail(db, row);

  const cookie = newBusinessToken(row.business_id);
  const csrf = csrfTokenOf(cookie);
  return db.transaction(async (trx) => {
    // The step or recovery code is taken once: a concurrent sign-in with the same one finds it gone.
    const taken = await trx('portal_users')
      .where({ id: row.id, business_id: row.business_id, status: 'ACTIVE' })
      .modify((q) => {
        if (step !== null) q.whereRaw('(totp_last_step IS NULL OR totp_last_step < ?)', [step]);
        else q.whereRaw('? = ANY (recovery_code_hashes)', [recovery]);
      })
      .update({
        failed_sign_ins: 0,
        ...(step !== null ? { totp_last_step: step } : { recovery_code_hashes: trx.raw('array_remove(recovery_code_hashes, ?)', [recovery]) }),
      })
      .returning('*');
    if (taken.length === 0) throw failed();
    const [session] = await trx('portal_sessions')
      .insert({
        id_hash: tokenHash(cookie),
        business_id: row.business_id,
        user_id: row.id,
        csrf_token_hash: tokenHash(csrf),
        expires_at: trx.raw(`CURRENT_TIMESTAMP(3) + make_interval(mins => ?)`, [config.portalSessionLifetimeMinutes]),
      })
      .returning(['created_at', 'expires_at']);
    return { cookie, session: sessionView(taken[0] as PortalUserRow, session, config, csrf) };
  });
}

function sessionView(user: PortalUserRow, session: { created_at: Date; expires_at: Date }, config: Config, csrf: string): Schemas['PortalSession'] {
  return {
    user: toUserView(user),
    permissions: permissionsOf({ role: user.role, permissions: null }),
    business_id: user.business_id,
    csrf_token: csrf,
    created_at: session.created_at.toISOString(),
    expires_at: session.expires_at.toISOString(),
    idle_timeout_seconds: config.portalSessionIdleMinutes * 60,
  };
}

const unauthorized = (): AppError =>
  new AppError('UNAUTHORIZED', 'The session is unknown or has ended: sign in again.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="wallet-service", error="invalid_token", error_description="The session has ended"' },
  });

/**
 * How often a session's `last_used_at` is written (ms): a request within this of the last
 * write reads only, so that a busy portal page does not write a row per request. The idle
 * timeout is therefore kept to within this.
 */
const SESSION_TOUCH_MS = 60_000;

/**
 * The principal of session cookie `value`, marking the session used now (at most once per
 * SESSION_TOUCH_MS). Throws 401 UNAUTHORIZED when the cookie is malformed or its session
 * unknown, ended, idle past PORTAL_SESSION_IDLE_MINUTES or past its lifetime, or its user
 * is no longer ACTIVE. One read per request: the session and its user's role together.
 */
export async function sessionPrincipal(db: Knex, config: Config, value: string): Promise<SessionCredential> {
  const businessId = tokenBusiness(value);
  if (!businessId) throw unauthorized();
  const idHash = tokenHash(value);
  const session = (await db('portal_sessions as s')
    .join('portal_users as u', function () {
      this.on('u.business_id', 's.business_id').andOn('u.id', 's.user_id');
    })
    .where({ 's.id_hash': idHash, 's.business_id': businessId, 'u.status': 'ACTIVE' })
    .whereNull('s.ended_at')
    .where('s.expires_at', '>', db.fn.now(3))
    .whereRaw('s.last_used_at > CURRENT_TIMESTAMP(3) - make_interval(mins => ?)', [config.portalSessionIdleMinutes])
    .first('s.user_id', 's.csrf_token_hash', 's.authenticated_at', 's.last_used_at', 'u.role')) as
    | { user_id: string; csrf_token_hash: string; authenticated_at: Date; last_used_at: Date; role: keyof typeof ROLES }
    | undefined;
  if (!session) throw unauthorized();
  // Judged on this instance's clock, as recentlyAuthenticated is: skew only shifts when the row is written.
  if (session.last_used_at.getTime() < Date.now() - SESSION_TOUCH_MS) {
    await db('portal_sessions').where({ id_hash: idHash, business_id: businessId }).update({ last_used_at: db.fn.now(3) });
  }
  return {
    principal: {
      kind: 'BUSINESS',
      clientId: session.user_id,
      userId: session.user_id,
      businessId,
      permissions: ROLES[session.role],
      // Judged on this instance's clock: Citus refuses a non-immutable function in RETURNING.
      recentlyAuthenticated: session.authenticated_at.getTime() > Date.now() - config.portalReauthenticationMinutes * 60_000,
    },
    csrfTokenHash: session.csrf_token_hash,
  };
}

/**
 * Re-authenticates the session of cookie value `cookie` with the user's TOTP `req.code` (or a
 * `req.recovery_code`, used up): the steps marked `x-reauthentication` are open to it for
 * PORTAL_REAUTHENTICATION_MINUTES. Each code is taken once, as at sign-in. Answers the
 * session. Throws 400 TOTP_INCORRECT for a wrong or used code, 401 UNAUTHORIZED when the
 * session has ended.
 */
export async function reauthenticate(
  db: Knex,
  keys: SealingKeys,
  config: Config,
  cookie: string,
  req: Schemas['PortalSessionReauthenticationRequest'],
): Promise<Schemas['PortalSession']> {
  const businessId = tokenBusiness(cookie);
  if (!businessId) throw unauthorized();
  return db.transaction(async (trx) => {
    const session = await trx('portal_sessions').where({ id_hash: tokenHash(cookie), business_id: businessId }).whereNull('ended_at').first();
    const row = session
      ? ((await trx('portal_users').where({ id: session.user_id, business_id: businessId, status: 'ACTIVE' }).forUpdate().first()) as PortalUserRow | undefined)
      : undefined;
    if (!session || !row) throw unauthorized();
    const step = req.code !== undefined ? totpStep(keys, row, req.code) : null;
    const recovery = req.recovery_code !== undefined ? recoveryCodeHash(row, req.recovery_code) : null;
    if (step === null && recovery === null) {
      throw new AppError('TOTP_INCORRECT', 'The code is not the current one of your authenticator, or was used already: enter the next code it shows.');
    }
    const [user] = (await trx('portal_users')
      .where({ id: row.id, business_id: businessId })
      .update(step !== null ? { totp_last_step: step } : { recovery_code_hashes: trx.raw('array_remove(recovery_code_hashes, ?)', [recovery]) })
      .returning('*')) as PortalUserRow[];
    const [updated] = await trx('portal_sessions')
      .where({ id_hash: session.id_hash, business_id: businessId })
      .update({ authenticated_at: trx.fn.now(3) })
      .returning(['created_at', 'expires_at']);
    return sessionView(user, updated, config, csrfTokenOf(cookie));
  });
}

/** The session of cookie value `cookie` (whose principal the HTTP layer has just read), with its CSRF token again (the portal after a reload). Throws 401 UNAUTHORIZED when it has ended. */
export async function currentSession(db: Knex, config: Config, cookie: string): Promise<Schemas['PortalSession']> {
  const businessId = tokenBusiness(cookie);
  const session = businessId ? await db('portal_sessions').where({ id_hash: tokenHash(cookie), business_id: businessId }).whereNull('ended_at').first() : undefined;
  const user = session ? ((await db('portal_users').where({ id: session.user_id, business_id: businessId }).first()) as PortalUserRow | undefined) : undefined;
  if (!session || !user) throw unauthorized();
  return sessionView(user, session, config, csrfTokenOf(cookie));
}

/** Ends the session of cookie value `cookie` (sign-out), or every session of its user (`everywhere`); answers how many ended. */
export async function endSessions(db: Knex, cookie: string, everywhere: boolean): Promise<number> {
  const businessId = tokenBusiness(cookie);
  if (!businessId) throw unauthorized();
  const idHash = tokenHash(cookie);
  const query = db('portal_sessions').where({ business_id: businessId }).whereNull('ended_at');
  if (everywhere) query.whereIn('user_id', db('portal_sessions').where({ id_hash: idHash, business_id: businessId }).select('user_id'));
  else query.where({ id_hash: idHash });
  return query.update({ ended_at: db.fn.now(3) });
}
