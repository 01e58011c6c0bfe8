/**
 * API clients (OAuth2 client credentials).
 *
 * Client secrets are 32 random bytes (256 bits), not passwords: a slow password hash
 * adds nothing against guessing and turns the token endpoint into a CPU lever (1,000 wrong
 * secrets in parallel would starve legitimate token requests). They are stored
 * as `hmac-sha256$<base64 HMAC-SHA256(key, secret)>`, under a key kept in `settings`
 * (a database leak alone does not allow checking guesses offline), and compared in
 * constant time. An unknown client id is compared against a dummy digest, so that it
 * takes the same work and time as a known id with a wrong secret: client ids cannot be
 * told apart by timing.
 *
 * Rows written by earlier versions (`scrypt$<salt>$<hash>`) still verify, and are
 * rewritten in the new form on their first successful use.
 *
 * A client is an API key (./apiKeys.ts): it holds a role or a list of permissions
 * (src/kernel/permissions.ts); after a roll its previous secret keeps working until
 * `previous_secret_expires_at`; a revoked client (`revoked_at`) takes no token and its
 * tokens are refused within CLIENT_PERMISSIONS_TTL_MS (clientPermissions).
 */
import { isTransactionConflict } from '../db/retry.js';
import { createHmac, randomBytes, randomUUID, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import type { Principal } from '../kernel/services.js';
import { clientSecretKey } from '../kernel/secrets/settings.js';
import { permissionsOf, type Permission, type Role } from '../kernel/permissions.js';

const scrypt = promisify(scryptCb) as (secret: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const PREFIX = 'hmac-sha256$';

async function digest(db: Knex, secret: string): Promise<Buffer> {
  return createHmac('sha256', await clientSecretKey(db)).update(secret, 'utf8').digest();
}

/** The stored form of `secret`. */
export async function hashSecret(db: Knex, secret: string): Promise<string> {
  return PREFIX + (await digest(db, secret)).toString('base64');
}

/** Constant-time check of `secret` against a stored hash (either form). */
async function secretMatches(db: Knex, secret: string, stored: string): Promise<boolean> {
  if (stored.startsWith('scrypt$')) {
    const [, salt, hash] = stored.split('$');
    const expected = Buffer.from(hash, 'base64');
    return timingSafeEqual(expected, await scrypt(secret, Buffer.from(salt, 'base64'), expected.length));
  }
  const expected = Buffer.from(stored.slice(PREFIX.length), 'base64');
  const actual = await digest(db, secret);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** A fresh random client secret (32 bytes, base64url). */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Registers a client. `clientId` and `secret` default to random values.
 * Returns the credentials; the secret is not retrievable afterwards. A client id is never a
 * uuid (throws an Error for one): an Idempotency-Key scoped to a uuid is a business's
 * (src/kernel/sql/idempotency_owner.sql).
 */
export async function createClient(
  db: Knex,
  args: {
    kind: Principal['kind'];
    businessId: string | null;
    clientId?: string;
    secret?: string;
    /** What it may do: a role (default `owner`) or, instead, a list of permissions. */
    grant?: { role: Role; permissions?: undefined } | { role?: undefined; permissions: readonly Permission[] };
    name?: string | null;
    id?: string;
  },
): Promise<{ client_id: string; client_secret: string }> {
  const clientId = args.clientId ?? `bus_${randomBytes(12).toString('hex')}`;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(clientId)) throw new Error(`a client id is never a uuid: ${clientId}`);
  const secret = args.secret ?? newClientSecret();
  const grant = args.grant ?? { role: 'owner' };
  await db('api_clients').insert({
    id: args.id ?? randomUUID(),
    client_id: clientId,
    secret_hash: await hashSecret(db, secret),
    kind: args.kind,
    business_id: args.businessId,
    name: args.name ?? null,
    role: grant.role ?? null,
    permissions: grant.permissions ? [...grant.permissions] : null,
  });
  return { client_id: clientId, client_secret: secret };
}

/** True when a client with this id exists. */
export async function clientExists(db: Knex, clientId: string): Promise<boolean> {
  return Boolean(await db('api_clients').where({ client_id: clientId }).first('id'));
}

/** Sets a client's secret (stored in the current form). */
export async function setClientSecret(db: Knex, clientId: string, secret: string): Promise<void> {
  await db('api_clients').where({ client_id: clientId }).update({ secret_hash: await hashSecret(db, secret) });
}

/** How often a client's `last_used_at` is written at most (ms): "last used" holds to within a minute. */
const LAST_USED_MS = 60_000;

/** A digest no secret produces in practice: what an unknown client id is compared against. */
const DUMMY_HASH = PREFIX + Buffer.alloc(32).toString('base64');

/** A token request's credentials judged: the principal (null when refused) and the business of the client it named, if that client exists. */
export interface ClientAuthentication {
  principal: Principal | null;
  /** The named client's business, refused or not (for the audit log); null for an unknown id or a platform client. */
  businessId: string | null;
}

/**
 * The principal for valid credentials, or null (unknown id, wrong secret, revoked client),
 * with the named client's business either way. The refusals cost the same: one indexed lookup
 * and two HMACs compared in constant time (the current secret and, during a roll's overlap,
 * the previous one). Records the use (`last_used_at`, to within a minute).
 */
export async function authenticateClient(db: Knex, clientId: string, secret: string, now = new Date()): Promise<ClientAuthentication> {
  const row = await db('api_clients').where({ client_id: clientId }).first();
  const current = await secretMatches(db, secret, row?.secret_hash ?? DUMMY_HASH);
  const overlapping = row?.previous_secret_hash && row.previous_secret_expires_at > now;
  const previous = await secretMatches(db, secret, overlapping ? row.previous_secret_hash : DUMMY_HASH);
  const businessId: string | null = row?.business_id ?? null;
  if (!row || row.revoked_at || !(current || previous)) return { principal: null, businessId };
  if (current && !String(row.secret_hash).startsWith(PREFIX)) await setClientSecret(db, clientId, secret);
  // Written at most once a minute: a key that asks for tokens often does not write its row each time
  // (on Citus a reference table's row, whose concurrent writes take every node's locks). The use is
  // a note, not the grant: a write that conflicts with another is left to the next use, and the
  // token is issued all the same.
  if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() > LAST_USED_MS) {
    await db('api_clients').where({ id: row.id }).update({ last_used_at: now }).catch((err: unknown) => {
      if (!isTransactionConflict(err)) throw err;
    });
  }
  return { principal: { kind: row.kind, clientId: row.client_id, businessId: row.business_id }, businessId };
}

/** How long an instance keeps a client's permissions: a revocation or a narrowing reaches every instance within this (ms). */
export const CLIENT_PERMISSIONS_TTL_MS = 5_000;
const granted = new Map<string, { permissions: readonly Permission[] | null; until: number }>();

/**
 * The current permissions of client `clientId`, or null when it is revoked or gone: read at
 * most once per CLIENT_PERMISSIONS_TTL_MS per instance (every authenticated request needs
 * them). A change made through this module clears this instance's copy at once.
 */
export async function clientPermissions(db: Knex, clientId: string, now = Date.now()): Promise<readonly Permission[] | null> {
  const cached = granted.get(clientId);
  if (cached && cached.until > now) return cached.permissions;
  const row = await db('api_clients').where({ client_id: clientId }).first('role', 'permissions', 'revoked_at');
  const permissions = row && !row.revoked_at ? Object.freeze(permissionsOf(row)) : null;
  if (granted.size >= 10_000) granted.clear();
  granted.set(clientId, { permissions, until: now + CLIENT_PERMISSIONS_TTL_MS });
  return permissions;
}

/** Drops this instance's copy of `clientId`'s permissions (after a change to them). */
export function forgetClientPermissions(clientId: string): void {
  granted.delete(clientId);
}
