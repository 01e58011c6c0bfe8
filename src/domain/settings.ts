/** Service settings kept in the database (`settings` table). */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The HS256 key for access tokens: JWT_SECRET when given, otherwise a random
 * 32-byte key generated once and kept, so tokens survive restarts.
 */
export async function jwtKey(db: Knex, fromEnv?: string): Promise<Uint8Array> {
  if (fromEnv) return new TextEncoder().encode(fromEnv);
  await db('settings').insert({ key: 'jwt_secret', value: randomBytes(32).toString('base64') }).onConflict('key').ignore();
  const row = await db('settings').where({ key: 'jwt_secret' }).first();
  return new Uint8Array(Buffer.from(row.value, 'base64'));
}
