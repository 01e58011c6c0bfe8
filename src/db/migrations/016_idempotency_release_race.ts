/**
 * Idempotency-Key: a duplicate that arrives while the request it repeats is
 * releasing its locks. PostgreSQL releases a transaction's locks one by one
 * after its commit, so a duplicate (same key, same body) could take the
 * request lock (on scope, key and fingerprint) already released and find the
 * key lock (on scope and key) not yet released: 007's idempotency_begin then
 * answered "another request with this key is running" (422
 * IDEMPOTENCY_KEY_REUSED) for what is the same request, already completed.
 * Found by the 100,000-operation property run (`npm run property`, 1 in ~15,000
 * duplicates sent to the other instance at the same moment).
 *
 * Now, when the key lock is held, the key's row is read (each statement of a
 * function sees what committed before it started): a completed response is
 * answered as usual (replayed for the same body, 422 for another); with no
 * completed row, another request with this key is in flight (422, as before).
 */
import type { Knex } from 'knex';

const HELD = `jsonb_build_object('request_hash', held.request_hash, 'state', held.state, 'response',
        CASE WHEN held.response_body->>'transaction_id' IS NOT NULL
             THEN held.response_body || jsonb_build_object('posting', ledger_posting_of((held.response_body->>'transaction_id')::uuid))
             ELSE held.response_body END)`;

function beginFunction(raceAware: boolean): string {
  return `
    CREATE OR REPLACE FUNCTION idempotency_begin(p_scope text, p_key text, p_hash text, p_stale_seconds int) RETURNS jsonb
    LANGUAGE plpgsql AS $$
    DECLARE
      held idempotency_keys;
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended(p_scope || '/' || p_key || '/' || p_hash, 0)) THEN
        RETURN jsonb_build_object('request_hash', p_hash, 'state', 'IN_PROGRESS');
      END IF;
      IF NOT pg_try_advisory_xact_lock(hashtextextended(p_scope || '/' || p_key, 0)) THEN
        ${
          raceAware
            ? `SELECT * INTO held FROM idempotency_keys WHERE scope = p_scope AND key = p_key;
        IF held.id IS NOT NULL AND held.state = 'COMPLETED' AND held.expires_at >= now() THEN
          RETURN ${HELD};
        END IF;`
            : ''
        }
        RETURN jsonb_build_object('request_hash', NULL, 'state', 'IN_PROGRESS');
      END IF;
      SELECT * INTO held FROM idempotency_keys WHERE scope = p_scope AND key = p_key FOR UPDATE;
      IF held.id IS NULL OR held.expires_at < now()
         OR (held.state = 'IN_PROGRESS' AND held.request_hash = p_hash
             AND held.created_at < now() - make_interval(secs => p_stale_seconds)) THEN
        RETURN NULL;
      END IF;
      RETURN ${HELD};
    END $$;`;
}

export async function up(knex: Knex): Promise<void> {
  await knex.raw(beginFunction(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(beginFunction(false));
}
