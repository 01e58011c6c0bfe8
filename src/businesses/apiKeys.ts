/**
 * API keys: a business's API clients (./clients.ts) as its people manage them. A key has a
 * name, a role or a list of permissions (src/kernel/permissions.ts), a secret shown once and
 * stored as a hash, an overlap after a roll during which the previous secret still takes
 * tokens, and a revocation. Every read and change is scoped to the caller's business: another
 * business's key is API_KEY_NOT_FOUND, like one that does not exist.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import { isRole, permissionsOf, type Permission, type Role } from '../kernel/permissions.js';
import { createClient, forgetClientPermissions, hashSecret, newClientSecret } from './clients.js';

type Schemas = components['schemas'];
export type ApiKeyView = Schemas['ApiKey'];
export type ApiKeyWithSecretView = Schemas['ApiKeyWithSecret'];

/** How long a rolled-over secret keeps taking tokens when the roll names no overlap (seconds). */
const DEFAULT_OVERLAP_SECONDS = 86_400;

interface ApiKeyRow {
  id: string;
  client_id: string;
  business_id: string;
  name: string | null;
  role: string | null;
  permissions: string[] | null;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
  previous_secret_expires_at: Date | null;
  revoked_at: Date | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

function toView(row: ApiKeyRow, now = new Date()): ApiKeyView {
  const overlapping = row.previous_secret_expires_at && row.previous_secret_expires_at > now ? row.previous_secret_expires_at : null;
  return {
    id: row.id,
    name: row.name,
    client_id: row.client_id,
    role: isRole(row.role) ? row.role : null,
    permissions: permissionsOf(row),
    status: row.revoked_at ? 'REVOKED' : 'ACTIVE',
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_used_at: iso(row.last_used_at),
    previous_secret_expires_at: iso(overlapping),
    revoked_at: iso(row.revoked_at),
  };
}

/** What a caller holding `held` may grant: throws 400 VALIDATION_ERROR for both or neither (`required`), 403 FORBIDDEN for a permission it lacks. */
function grantOf(
  req: { role?: Role; permissions?: Permission[] },
  held: readonly Permission[],
  required: boolean,
): { role: Role; permissions: null } | { role: null; permissions: Permission[] } | null {
  if (req.role !== undefined && req.permissions !== undefined) {
    throw new AppError('VALIDATION_ERROR', 'Give a role or a list of permissions, not both.', { errors: [{ pointer: '/permissions', detail: 'must not be given with role' }] });
  }
  if (req.role === undefined && req.permissions === undefined) {
    if (!required) return null;
    throw new AppError('VALIDATION_ERROR', 'Give a role or a list of permissions.', { errors: [{ pointer: '/role', detail: 'role or permissions is required' }] });
  }
  const grant = req.role !== undefined ? { role: req.role, permissions: null } : { role: null, permissions: req.permissions! };
  const missing = permissionsOf(grant).find((p) => !held.includes(p));
  if (missing) throw new AppError('FORBIDDEN', `A key may grant only the permissions its caller holds; the caller lacks ${missing}.`);
  return grant;
}

async function keyRow(db: Knex, businessId: string, id: string, opts: { active?: true; forUpdate?: true } = {}): Promise<ApiKeyRow> {
  const query = db('api_clients').where({ id, business_id: businessId, kind: 'BUSINESS' });
  if (opts.forUpdate) query.forUpdate();
  const row = (await query.first()) as ApiKeyRow | undefined;
  if (!row || (opts.active && row.revoked_at)) throw new AppError('API_KEY_NOT_FOUND', `No API key ${id} for this business.`);
  return row;
}

/**
 * Creates a key of `businessId` named `req.name` with `req.role` or `req.permissions` (exactly
 * one: else 400 VALIDATION_ERROR), granting only what `held` (the caller's permissions)
 * contains (403 FORBIDDEN). Returns it with its secret, shown this once.
 */
export async function createApiKey(
  db: Knex,
  businessId: string,
  req: Schemas['ApiKeyCreateRequest'],
  held: readonly Permission[],
): Promise<ApiKeyWithSecretView> {
  const grant = grantOf(req, held, true)!;
  const id = randomUUID();
  const { client_secret } = await createClient(db, {
    kind: 'BUSINESS',
    businessId,
    id,
    name: req.name,
    grant: grant.role ? { role: grant.role } : { permissions: grant.permissions },
  });
  return { ...toView(await keyRow(db, businessId, id)), client_secret };
}

/** A page of the business's keys, revoked ones included, newest first (never a secret). Throws 400 INVALID_CURSOR. */
export async function listApiKeys(db: Knex, businessId: string, page: PageQuery): Promise<Page<ApiKeyView>> {
  const now = new Date();
  return paginate<ApiKeyRow, ApiKeyView>(db('api_clients').where({ business_id: businessId, kind: 'BUSINESS' }), page, (rows) => rows.map((r) => toView(r, now)));
}

/** The business's key `id`; throws 404 API_KEY_NOT_FOUND. */
export async function getApiKey(db: Knex, businessId: string, id: string): Promise<ApiKeyView> {
  return toView(await keyRow(db, businessId, id));
}

/**
 * Renames key `id` or replaces what it may do (a role or permissions, at most one: 400
 * VALIDATION_ERROR; only what `held` contains: 403 FORBIDDEN). Throws 404 API_KEY_NOT_FOUND,
 * also for a revoked key. This instance's tokens of the key follow at once, others' within
 * CLIENT_PERMISSIONS_TTL_MS.
 */
export async function updateApiKey(
  db: Knex,
  businessId: string,
  id: string,
  req: Schemas['ApiKeyUpdateRequest'],
  held: readonly Permission[],
): Promise<ApiKeyView> {
  const grant = grantOf(req, held, false);
  const row = await keyRow(db, businessId, id, { active: true });
  const [updated] = (await db('api_clients')
    .where({ id: row.id, business_id: businessId })
    .whereNull('revoked_at')
    .update({ ...(req.name !== undefined ? { name: req.name } : {}), ...(grant ?? {}), updated_at: db.fn.now(3) })
    .returning('*')) as ApiKeyRow[];
  if (!updated) throw new AppError('API_KEY_NOT_FOUND', `No API key ${id} for this business.`);
  forgetClientPermissions(row.client_id);
  return toView(updated);
}

/**
 * Draws a new secret for key `id`; the current one keeps taking tokens for `overlapSeconds`
 * (default 86400; 0: not at all), replacing an older previous secret. Returns the key with
 * its new secret, shown this once. Throws 404 API_KEY_NOT_FOUND, also for a revoked key.
 */
export async function rollApiKeySecret(db: Knex, businessId: string, id: string, overlapSeconds = DEFAULT_OVERLAP_SECONDS): Promise<ApiKeyWithSecretView> {
  const secret = newClientSecret();
  const hash = await hashSecret(db, secret);
  return db.transaction(async (trx) => {
    const row = await keyRow(trx, businessId, id, { active: true, forUpdate: true });
    const [updated] = (await trx('api_clients')
      .where({ id: row.id, business_id: businessId })
      .update({
        secret_hash: hash,
        previous_secret_hash: trx.ref('secret_hash'),
        previous_secret_expires_at: trx.raw("CURRENT_TIMESTAMP(3) + make_interval(secs => ?)", [overlapSeconds]),
        updated_at: trx.fn.now(3),
      })
      .returning('*')) as ApiKeyRow[];
    return { ...toView(updated), client_secret: secret };
  });
}

/**
 * Revokes key `id`: its secrets take no more tokens and its tokens are refused (at once on
 * this instance, within CLIENT_PERMISSIONS_TTL_MS on the others). A revoked key is answered
 * as it is. Throws 404 API_KEY_NOT_FOUND.
 */
export async function revokeApiKey(db: Knex, businessId: string, id: string): Promise<ApiKeyView> {
  const row = await keyRow(db, businessId, id);
  if (row.revoked_at) return toView(row);
  // `revoked_at IS NULL` keeps the first revocation's time when two race (Citus refuses a
  // non-immutable function inside COALESCE, so the condition is in the WHERE).
  const [updated] = (await db('api_clients')
    .where({ id: row.id, business_id: businessId })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now(3), updated_at: db.fn.now(3), previous_secret_hash: null, previous_secret_expires_at: null })
    .returning('*')) as ApiKeyRow[];
  forgetClientPermissions(row.client_id);
  return toView(updated ?? (await keyRow(db, businessId, id)));
}
