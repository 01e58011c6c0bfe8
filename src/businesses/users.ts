/**
 * Portal users: a business's people, who sign in to the portal (./sessions.ts) and hold a
 * role (src/kernel/permissions.ts: one model for keys and users).
 *
 * A user is invited (status INVITED) by a caller holding `keys:manage` (the business's
 * credentials: its keys and its people), with a role whose permissions the caller holds itself. The invitation's token (`<business id>.<32 random
 * bytes, base64url>`, valid INVITATION_DAYS) is stored as its SHA-256: in the sandbox the
 * message that would be e-mailed is kept for a test helper instead (`sandbox_user_invitations`).
 * Accepting it (./invitations.ts) sets the password (argon2id, ARGON2_OPTIONS) and draws a TOTP secret (RFC
 * 6238: SHA-1, 6 digits, 30 s; sealed at rest in the TOTP_SECRET key family); confirming a
 * first code activates the user (ACTIVE) and answers RECOVERY_CODES recovery codes, shown
 * once and stored as SHA-256 hashes. Removing a user
 * (REMOVED) ends its sessions and frees its email. The business keeps at least one ACTIVE
 * owner once it has one: the last cannot be removed or given another role (409 LAST_OWNER).
 *
 * An email names one user across businesses (`portal_user_emails`, a directory), compared
 * lower-cased. Every read and change is scoped to the caller's business: another business's
 * user is PORTAL_USER_NOT_FOUND, like one that does not exist.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import argon2 from 'argon2';
import type { Knex } from 'knex';
import { Secret, TOTP } from 'otpauth';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import { permissionsOf, type Permission, type Role } from '../kernel/permissions.js';
import { familyKeys, keyFamilies, openValue, type SealingKeys } from '../kernel/secrets/sealing.js';
import type { Config } from '../kernel/serviceConfig.js';

type Schemas = components['schemas'];
export type PortalUserView = Schemas['PortalUser'];

/**
 * The password hash's parameters: argon2id with 19 MiB of memory, 2 passes, 1 lane, the
 * OWASP Password Storage Cheat Sheet's first recommended configuration. About 0.1 s of one
 * core each, so that the sign-ins the address limit lets through cannot starve a good one.
 */
export const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** How long an invitation's token stays valid (days). */
const INVITATION_DAYS = 7;
/** Recovery codes answered on activation. */
export const RECOVERY_CODES = 10;
/** The issuer named in the TOTP URI (what an authenticator app shows). */
const TOTP_ISSUER = 'Wallet Service';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface PortalUserRow {
  id: string;
  business_id: string;
  email: string;
  name: string;
  role: Role;
  status: 'INVITED' | 'ACTIVE' | 'REMOVED';
  password_hash: string | null;
  totp_secret_sealed: string | null;
  totp_key_version: number | null;
  totp_last_step: string | null;
  recovery_code_hashes: string[];
  invitation_expires_at: Date | null;
  failed_sign_ins: number;
  locked_until: Date | null;
  created_at: Date;
  updated_at: Date;
  activated_at: Date | null;
  removed_at: Date | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** SHA-256 (hex) of a random token: tokens carry 256 bits, so a plain hash suffices to keep them unusable from a copy of the table. */
export const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A token of `businessId`: `<business id>.<32 random bytes, base64url>` (the business routes the lookup to its tenant). */
export const newBusinessToken = (businessId: string): string => `${businessId}.${randomBytes(32).toString('base64url')}`;

/** The business a token names, or null when it is not of the form newBusinessToken draws. */
export function tokenBusiness(token: string): string | null {
  const [businessId, secret, extra] = token.split('.');
  return extra === undefined && UUID.test(businessId ?? '') && /^[A-Za-z0-9_-]{43}$/.test(secret ?? '') ? businessId : null;
}

export function toUserView(row: PortalUserRow): PortalUserView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    invitation_expires_at: row.status === 'INVITED' ? iso(row.invitation_expires_at) : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    activated_at: iso(row.activated_at),
    removed_at: iso(row.removed_at),
  };
}

/** The sealing keys of the TOTP secrets (the TOTP_SECRET family), derived once at start by the face. */
export async function totpSecretKeys(db: Knex, config: Config): Promise<SealingKeys> {
  return familyKeys(db, keyFamilies(config).totpSecret, 'portal-user-totp-secret');
}

/** The context a user's TOTP secret is sealed under (its business and id). */
export const sealContext = (row: { business_id: string; id: string }): string => `portal-user:${row.business_id}:${row.id}:totp`;

/** The TOTP of `row` with the base32 `secret` (RFC 6238 defaults, as authenticator apps expect). */
export const totpOf = (row: { email: string }, secret: Secret): TOTP => new TOTP({ issuer: TOTP_ISSUER, label: row.email, algorithm: 'SHA1', digits: 6, period: 30, secret });

/**
 * The time step at which `code` is `row`'s TOTP (one step of clock drift either way), or null
 * for a wrong code, a malformed one, or one whose step is not after the last one used (a code
 * is taken once).
 */
export function totpStep(keys: SealingKeys, row: PortalUserRow, code: string, now = Date.now()): number | null {
  if (!row.totp_secret_sealed || !/^[0-9]{6}$/.test(code)) return null;
  const secret = Secret.fromBase32(openValue(keys, sealContext(row), { sealed: row.totp_secret_sealed, keyVersion: row.totp_key_version! }));
  const delta = totpOf(row, secret).validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 30_000) + delta;
  return row.totp_last_step !== null && step <= Number(row.totp_last_step) ? null : step;
}

/** The hash of `code` among `row`'s unused recovery codes, compared in constant time; null when none matches. */
export function recoveryCodeHash(row: PortalUserRow, code: string): string | null {
  const given = Buffer.from(tokenHash(code.trim().toLowerCase()));
  return row.recovery_code_hashes.find((h) => h.length === given.length && timingSafeEqual(Buffer.from(h), given)) ?? null;
}

/** Throws 403 FORBIDDEN when `role` holds a permission `held` lacks: a caller grants only what it holds. */
function checkGrant(role: Role, held: readonly Permission[]): void {
  const missing = permissionsOf({ role, permissions: null }).find((p) => !held.includes(p));
  if (missing) throw new AppError('FORBIDDEN', `A user may be given only a role whose permissions the caller holds; the caller lacks ${missing}.`);
}

async function userRow(db: Knex, businessId: string, id: string, forUpdate = false): Promise<PortalUserRow> {
  const query = db('portal_users').where({ business_id: businessId, id });
  if (forUpdate) query.forUpdate();
  const row = (await query.first()) as PortalUserRow | undefined;
  if (!row) throw new AppError('PORTAL_USER_NOT_FOUND', `No portal user ${id} for this business.`);
  return row;
}

/** Throws 409 LAST_OWNER when `row` is the business's last ACTIVE owner (locked: two removals cannot both pass). */
async function keepAnOwner(trx: Knex.Transaction, row: PortalUserRow): Promise<void> {
  if (row.role !== 'owner' || row.status !== 'ACTIVE') return;
  const owners = await trx('portal_users').where({ business_id: row.business_id, role: 'owner', status: 'ACTIVE' }).forUpdate().select('id');
  if (owners.length <= 1) throw new AppError('LAST_OWNER', 'The business keeps at least one active owner: make another user owner first.');
}

/**
 * Invites `req.email` (lower-cased) to `businessId` as `req.role`, which `held` (the
 * caller's permissions) must cover (403 FORBIDDEN). Throws 409 PORTAL_USER_EMAIL_TAKEN when
 * the email names a user of any business who was not removed. In the sandbox, keeps the
 * invitation message for listSandboxUserInvitations. Run in the request's transaction (`db`).
 */
export async function inviteUser(db: Knex, businessId: string, req: Schemas['PortalUserInviteRequest'], held: readonly Permission[], sandbox: boolean): Promise<PortalUserView> {
  checkGrant(req.role, held);
  const email = req.email.trim().toLowerCase();
  const id = randomUUID();
  const token = newBusinessToken(businessId);
  const taken = await db('portal_user_emails').insert({ email, business_id: businessId, user_id: id }).onConflict('email').ignore().returning('email');
  if (taken.length === 0) throw new AppError('PORTAL_USER_EMAIL_TAKEN', 'A portal user with this email already exists.');
  const [row] = (await db('portal_users')
    .insert({
      id,
      business_id: businessId,
      email,
      name: req.name,
      role: req.role,
      status: 'INVITED',
      invitation_token_hash: tokenHash(token),
      invitation_expires_at: db.raw(`CURRENT_TIMESTAMP(3) + interval '${INVITATION_DAYS} days'`),
    })
    .returning('*')) as PortalUserRow[];
  if (sandbox) {
    await db('sandbox_user_invitations').insert({ id: randomUUID(), business_id: businessId, user_id: id, email, token, expires_at: row.invitation_expires_at });
  }
  return toUserView(row);
}

/** A page of the business's users, removed ones included, newest first. Throws 400 INVALID_CURSOR. */
export async function listUsers(db: Knex, businessId: string, page: PageQuery): Promise<Page<PortalUserView>> {
  return paginate<PortalUserRow, PortalUserView>(db('portal_users').where({ business_id: businessId }), page, (rows) => rows.map(toUserView));
}

/** The business's user `id`; throws 404 PORTAL_USER_NOT_FOUND. */
export async function getUser(db: Knex, businessId: string, id: string): Promise<PortalUserView> {
  return toUserView(await userRow(db, businessId, id));
}

/**
 * Renames user `id` or gives it another role (which `held` must cover, as must its current
 * role: 403 FORBIDDEN). Its sessions hold the new role from their next request. Throws 404
 * PORTAL_USER_NOT_FOUND (also for a removed user), 409 LAST_OWNER.
 */
export async function updateUser(db: Knex, businessId: string, id: string, req: Schemas['PortalUserUpdateRequest'], held: readonly Permission[]): Promise<PortalUserView> {
  return db.transaction(async (trx) => {
    const row = await userRow(trx, businessId, id, true);
    if (row.status === 'REMOVED') throw new AppError('PORTAL_USER_NOT_FOUND', `No portal user ${id} for this business.`);
    if (req.role !== undefined && req.role !== row.role) {
      checkGrant(row.role, held);
      checkGrant(req.role, held);
      await keepAnOwner(trx, row);
    }
    const [updated] = (await trx('portal_users')
      .where({ id: row.id, business_id: businessId })
      .update({ ...(req.name !== undefined ? { name: req.name } : {}), ...(req.role !== undefined ? { role: req.role } : {}), updated_at: trx.fn.now(3) })
      .returning('*')) as PortalUserRow[];
    return toUserView(updated);
  });
}

/**
 * Removes user `id` (REMOVED): its sessions end at once, its invitation stops working and its
 * email may be invited again. Removing a removed user answers it as it is. A caller removes
 * only a user whose role it could grant (403 FORBIDDEN). Throws 404 PORTAL_USER_NOT_FOUND, 409 LAST_OWNER.
 */
export async function removeUser(db: Knex, businessId: string, id: string, held: readonly Permission[]): Promise<PortalUserView> {
  return db.transaction(async (trx) => {
    const row = await userRow(trx, businessId, id, true);
    if (row.status === 'REMOVED') return toUserView(row);
    checkGrant(row.role, held);
    await keepAnOwner(trx, row);
    const [updated] = (await trx('portal_users')
      .where({ id: row.id, business_id: businessId })
      .update({ status: 'REMOVED', removed_at: trx.fn.now(3), updated_at: trx.fn.now(3), invitation_token_hash: null, invitation_expires_at: null })
      .returning('*')) as PortalUserRow[];
    await trx('portal_user_emails').where({ email: row.email, business_id: businessId, user_id: row.id }).delete();
    await trx('portal_sessions').where({ business_id: businessId, user_id: row.id }).whereNull('ended_at').update({ ended_at: trx.fn.now(3) });
    return toUserView(updated);
  });
}
