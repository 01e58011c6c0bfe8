/**
 * `ledger_move_keyed` (007) with a new key's path written out in its own body
 * (performance): a request whose Idempotency-Key is new takes the two
 * advisory locks, finds no row for the key, moves and inserts the key's row,
 * without the calls to idempotency_begin (PL/pgSQL) and idempotency_finish (a
 * SQL-language function, planned and run as a function call of its own).
 *
 * Every other case goes through idempotency_begin exactly as before: a lock
 * held by another session (the same request in flight, or another request with
 * the key), or a row already there (completed, expired, or left IN_PROGRESS).
 * Advisory locks are re-entrant within a session, so idempotency_begin takes
 * again what this function already took and decides as it always has; when it
 * answers that the key is free (an expired or stale row, or a holder that has
 * just rolled back), the movement runs and its row is stored with
 * idempotency_finish, which replaces an old row.
 *
 * The row of a new key is a plain INSERT: the key's lock is held and the row
 * was not there when it was taken (PostgreSQL releases a transaction's locks
 * only after its commit is visible), and the unique (scope, key) index still
 * refuses a second row, so two effects can never both commit.
 *
 * That index is now the table's primary key, and the index on the random `id`
 * (kept as a column) is gone: one random b-tree fewer to write per keyed request,
 * with its full-page images in the WAL after each checkpoint.
 */
import type { Knex } from 'knex';

const KEYED_007 = `
    CREATE OR REPLACE FUNCTION ledger_move_keyed(
      p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int, p_context jsonb,
      p_business uuid, p_type text, p_request jsonb
    ) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      held jsonb := idempotency_begin(p_scope, p_key, p_hash, p_stale_seconds);
      result jsonb;
      response jsonb;
    BEGIN
      IF held IS NOT NULL THEN
        RETURN jsonb_build_object('held', held);
      END IF;
      result := ledger_move(p_business, p_type, p_request);
      IF result->'refusal' IS NOT NULL THEN
        response := jsonb_build_object('status', result->'refusal'->'status', 'refusal', result->'refusal', 'context', p_context);
        PERFORM idempotency_finish(p_scope, p_key, p_hash, response, p_ttl_seconds);
        RETURN response;
      END IF;
      PERFORM idempotency_finish(p_scope, p_key, p_hash, jsonb_build_object('status', 201, 'transaction_id', result->'id'), p_ttl_seconds);
      RETURN jsonb_build_object('status', 201, 'posting', result);
    END $$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
    ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_scope_key_unique;
    ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (scope, key);

    CREATE OR REPLACE FUNCTION ledger_move_keyed(
      p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int, p_context jsonb,
      p_business uuid, p_type text, p_request jsonb
    ) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      fresh boolean := false;  -- a new key: locks taken here, no row
      held jsonb;
      result jsonb;
      response jsonb;
    BEGIN
      IF pg_try_advisory_xact_lock(hashtextextended(p_scope || '/' || p_key || '/' || p_hash, 0))
         AND pg_try_advisory_xact_lock(hashtextextended(p_scope || '/' || p_key, 0)) THEN
        fresh := NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE scope = p_scope AND key = p_key);
      END IF;
      IF NOT fresh THEN
        held := idempotency_begin(p_scope, p_key, p_hash, p_stale_seconds);
        IF held IS NOT NULL THEN
          RETURN jsonb_build_object('held', held);
        END IF;
      END IF;

      result := ledger_move(p_business, p_type, p_request);
      IF result->'refusal' IS NOT NULL THEN
        response := jsonb_build_object('status', result->'refusal'->'status', 'refusal', result->'refusal', 'context', p_context);
      ELSE
        response := jsonb_build_object('status', 201, 'transaction_id', result->'id');
      END IF;
      IF fresh THEN
        INSERT INTO idempotency_keys (id, scope, key, request_hash, state, response_status, response_body, expires_at)
        VALUES (gen_random_uuid(), p_scope, p_key, p_hash, 'COMPLETED', (response->>'status')::int, response,
                now() + make_interval(secs => p_ttl_seconds));
      ELSE
        PERFORM idempotency_finish(p_scope, p_key, p_hash, response, p_ttl_seconds);
      END IF;
      IF result->'refusal' IS NOT NULL THEN
        RETURN response;
      END IF;
      RETURN jsonb_build_object('status', 201, 'posting', result);
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${KEYED_007}
    ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
    ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (id);
    ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_scope_key_unique UNIQUE (scope, key);
  `);
}
