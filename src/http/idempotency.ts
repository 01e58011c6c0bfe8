/**
 * Idempotency keys for money-moving POSTs (../shared/API_CONVENTIONS.md,
 * "Idempotency"; the design follows the IETF draft
 * "The Idempotency-Key HTTP Header Field").
 *
 * 1. claim: the key is inserted IN_PROGRESS in its own committed statement, so a
 *    concurrent duplicate sees it: same body → 409 IDEMPOTENCY_KEY_IN_USE with
 *    Retry-After; different body → 422 IDEMPOTENCY_KEY_REUSED.
 * 2. run: the operation runs in one database transaction that also marks the key
 *    COMPLETED with the response, so the effect and the stored response commit
 *    together: exactly one effect however many duplicates arrive.
 * 3. A typed failure (4xx) is stored too and replayed as it was; an unexpected
 *    failure releases the key so that a retry can run.
 * 4. A claim left IN_PROGRESS for over STALE_SECONDS (its process died) may be
 *    taken over by the same request; the takeover gives the row a new id, so the
 *    original, should it still be running, fails to complete and rolls back:
 *    never two effects.
 * Keys are scoped to the calling business (or platform client) and kept 24 hours.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from '../errors.js';

const KEY_TTL_HOURS = 24;
const STALE_SECONDS = 60;

/** A response as sent on the wire. */
export interface StoredResponse {
  status: number;
  body: unknown;
  contentType?: string;
}

/** Stable JSON (sorted object keys) for hashing request bodies. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Fingerprint of an operation call: operationId, path parameters and body. */
export function requestHash(operationId: string, path: unknown, body: unknown): string {
  return createHash('sha256').update(canonical({ operationId, path, body })).digest('hex');
}

type Claim = { kind: 'claimed'; id: string } | { kind: 'replay'; response: StoredResponse };

async function claim(db: Knex, scope: string, key: string, hash: string): Promise<Claim> {
  const id = randomUUID();
  const inserted = await db.raw(
    `INSERT INTO idempotency_keys (id, scope, key, request_hash, state, expires_at)
     VALUES (?, ?, ?, ?, 'IN_PROGRESS', now() + interval '${KEY_TTL_HOURS} hours')
     ON CONFLICT (scope, key) DO UPDATE
       SET id = EXCLUDED.id, request_hash = EXCLUDED.request_hash, state = 'IN_PROGRESS',
           response_status = NULL, response_body = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at < now()
          OR (idempotency_keys.state = 'IN_PROGRESS' AND idempotency_keys.request_hash = EXCLUDED.request_hash
              AND idempotency_keys.created_at < now() - interval '${STALE_SECONDS} seconds')
     RETURNING id`,
    [id, scope, key, hash],
  );
  if (inserted.rows.length) return { kind: 'claimed', id };
  const existing = await db('idempotency_keys').where({ scope, key }).first();
  if (!existing) return claim(db, scope, key, hash); // expired and deleted in between
  if (existing.request_hash !== hash) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request.');
  }
  if (existing.state === 'IN_PROGRESS') {
    throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed.', {
      headers: { 'Retry-After': '1' },
    });
  }
  return { kind: 'replay', response: existing.response_body as StoredResponse };
}

/** Marks claim `id` COMPLETED with `response`; false when the claim was taken over. */
async function complete(db: Knex, id: string, response: StoredResponse): Promise<boolean> {
  const updated = await db('idempotency_keys')
    .where({ id, state: 'IN_PROGRESS' })
    .update({ state: 'COMPLETED', response_status: response.status, response_body: JSON.stringify(response) });
  return updated === 1;
}

/**
 * Runs `run` at most once per (scope, key, request). Returns its response, or
 * the stored one with `replayed: true`. `toStored` renders a typed failure as
 * the response to keep (problem details).
 */
export async function withIdempotency(
  db: Knex,
  args: { scope: string; key: string; hash: string; toStored: (err: AppError) => StoredResponse },
  run: (trx: Knex) => Promise<StoredResponse>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const claimed = await claim(db, args.scope, args.key, args.hash);
  if (claimed.kind === 'replay') return { response: claimed.response, replayed: true };
  try {
    const response = await db.transaction(async (trx) => {
      const result = await run(trx);
      if (!(await complete(trx, claimed.id, result))) throw new Error('idempotency claim was taken over; rolling back');
      return result;
    });
    return { response, replayed: false };
  } catch (err) {
    if (err instanceof AppError) {
      await complete(db, claimed.id, args.toStored(err));
    } else {
      await db('idempotency_keys').where({ id: claimed.id }).delete();
    }
    throw err;
  }
}
