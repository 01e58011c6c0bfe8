/** Service settings kept in the database (`settings` table). */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/** A random 32-byte secret named `key` in `settings`, created on first use and then kept. */
async function storedSecret(db: Knex, key: string): Promise<Buffer> {
  await db('settings').insert({ key, value: randomBytes(32).toString('base64') }).onConflict('key').ignore();
  const row = await db('settings').where({ key }).first();
  return Buffer.from(row.value, 'base64');
}

const clientSecretKeys = new WeakMap<Knex, Promise<Buffer>>();

/**
 * The HMAC key under which client secrets are stored (see src/businesses/clients.ts): random,
 * kept in the database so every instance shares it, read once per pool.
 */
export function clientSecretKey(db: Knex): Promise<Buffer> {
  let key = clientSecretKeys.get(db);
  if (!key) {
    key = storedSecret(db, 'client_secret_key');
    key.catch(() => clientSecretKeys.delete(db));
    clientSecretKeys.set(db, key);
  }
  return key;
}

/**
 * The HS256 key for access tokens: JWT_SECRET when given, otherwise a random
 * 32-byte key generated once and kept, so tokens survive restarts.
 */
export async function jwtKey(db: Knex, fromEnv?: string): Promise<Uint8Array> {
  if (fromEnv) return new TextEncoder().encode(fromEnv);
  return new Uint8Array(await storedSecret(db, 'jwt_secret'));
}

const keptSecrets = new WeakMap<Knex, Map<string, Promise<Buffer>>>();

/**
 * A 32-byte secret named `name` (e.g. `otp_hash_key`): `fromEnv` when given,
 * otherwise generated once and kept in `settings`, so that every instance of
 * the service and every restart uses the same one. Read once per pool.
 */
export function keptSecret(db: Knex, name: string, fromEnv?: string): Promise<Buffer> {
  if (fromEnv) return Promise.resolve(Buffer.from(fromEnv, 'utf8'));
  let byName = keptSecrets.get(db);
  if (!byName) keptSecrets.set(db, (byName = new Map()));
  let secret = byName.get(name);
  if (!secret) {
    secret = (async () => {
      await db('settings').insert({ key: name, value: randomBytes(32).toString('base64') }).onConflict('key').ignore();
      const row = await db('settings').where({ key: name }).first();
      return Buffer.from(row.value, 'base64');
    })();
    secret.catch(() => byName.delete(name)); // a failed read is retried by the next caller
    byName.set(name, secret);
  }
  return secret;
}
