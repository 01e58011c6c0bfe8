/**
 * API clients (OAuth2 client-credentials). Secrets are stored as scrypt hashes
 * (`scrypt$<salt b64>$<hash b64>`) and compared in constant time.
 */
import { randomBytes, randomUUID, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import type { Principal } from '../http/operation.js';

const scrypt = promisify(scryptCb) as (secret: string, salt: Buffer, keylen: number) => Promise<Buffer>;

async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

async function secretMatches(secret: string, stored: string): Promise<boolean> {
  const [, salt, hash] = stored.split('$');
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(expected, actual);
}

/** A fresh random client secret (32 bytes, base64url). */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Registers a client. `clientId` and `secret` default to random values.
 * Returns the credentials; the secret is not retrievable afterwards.
 */
export async function createClient(
  db: Knex,
  args: { kind: Principal['kind']; businessId: string | null; clientId?: string; secret?: string },
): Promise<{ client_id: string; client_secret: string }> {
  const clientId = args.clientId ?? `bus_${randomBytes(12).toString('hex')}`;
  const secret = args.secret ?? newClientSecret();
  await db('api_clients').insert({
    id: randomUUID(),
    client_id: clientId,
    secret_hash: await hashSecret(secret),
    kind: args.kind,
    business_id: args.businessId,
  });
  return { client_id: clientId, client_secret: secret };
}

/** True when a client with this id exists. */
export async function clientExists(db: Knex, clientId: string): Promise<boolean> {
  return Boolean(await db('api_clients').where({ client_id: clientId }).first('id'));
}

/** The principal for valid credentials, or null (unknown id or wrong secret). */
export async function authenticateClient(db: Knex, clientId: string, secret: string): Promise<Principal | null> {
  const row = await db('api_clients').where({ client_id: clientId }).first();
  if (!row || !(await secretMatches(secret, row.secret_hash))) return null;
  return { kind: row.kind, clientId: row.client_id, businessId: row.business_id };
}
