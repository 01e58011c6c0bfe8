/**
 * Idempotency-Key handling in PostgreSQL (semantics: src/kernel/idempotency.ts),
 * so that a keyed movement is ONE statement and ONE transaction:
 * `ledger_move_keyed` = idempotency_begin + ledger_move (003) + idempotency_finish.
 *
 * A request in flight is announced by two transaction-scoped advisory locks,
 * taken without waiting: one on (scope, key, request fingerprint), then one on
 * (scope, key). A duplicate that cannot take the first is the same request
 * still running (409 IDEMPOTENCY_KEY_IN_USE); one that cannot take the second
 * is another request with this key running (422 IDEMPOTENCY_KEY_REUSED). The
 * holder then reads the key's row: a completed response is replayed (or 422
 * for another body). Otherwise it moves and stores the response (the
 * transaction's id, from which the posting is rebuilt for a replay, or the
 * refusal) in the same transaction: the effect and its stored response commit
 * together, and the locks are released only once both are visible.
 * The unique (scope, key) index still forbids two rows, so two effects can
 * never both commit. (Lock keys are 64-bit hashes; a collision between two
 * keys in flight at the same moment can only make one of them wait its turn
 * or be refused, never run twice.)
 *
 * Rows left IN_PROGRESS (by the claim-first protocol this replaces) are
 * honoured: in use while recent, taken over by the same request once older
 * than the stale time; expired rows are replaced.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- The posting of transaction p_id as ledger_move returned it when it committed,
    -- rebuilt from what never changes: the transaction row as created (refunded_amount
    -- 0.00, no reversal yet), both accounts, its entries and, for a refund linked to a
    -- payout, the payout's refunded total up to this refund (refunds of one payout are
    -- serialised by its row lock and draw their references in that order).
    CREATE FUNCTION ledger_posting_of(p_id uuid) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
    DECLARE
      t transactions;
      o transactions;
      d accounts;
      c accounts;
      posting jsonb;
    BEGIN
      SELECT * INTO STRICT t FROM transactions WHERE id = p_id;
      SELECT * INTO STRICT d FROM accounts WHERE id = t.debit_account_id;
      SELECT * INTO STRICT c FROM accounts WHERE id = t.credit_account_id;
      t.refunded_amount := 0;
      t.reversal_transaction_id := NULL;
      posting := ledger_posting_json(t, d, c,
        (SELECT balance_after FROM ledger_entries WHERE transaction_id = t.id AND account_id = d.id),
        (SELECT balance_after FROM ledger_entries WHERE transaction_id = t.id AND account_id = c.id));
      IF t.type = 'REFUND' THEN
        SELECT * INTO o FROM transactions WHERE id = t.original_transaction_id;
        posting := posting || jsonb_build_object('original', CASE WHEN o.id IS NULL THEN NULL ELSE jsonb_build_object(
          'reference', o.reference, 'amount', o.amount::text,
          'refunded_amount', (SELECT sum(r.amount) FROM transactions r
                              WHERE r.original_transaction_id = o.id AND r.type = 'REFUND' AND r.reference <= t.reference)::text) END);
      END IF;
      RETURN posting;
    END $$;

    -- Takes Idempotency-Key (p_scope, p_key) for the request with fingerprint p_hash, for
    -- the rest of the transaction. NULL when taken: the key is free, expired, or left
    -- IN_PROGRESS by the same request more than p_stale_seconds ago (its row is then
    -- locked, so that its owner, were it alive, cannot complete it). Otherwise the key as
    -- another request holds it: {request_hash, state, response}; request_hash is p_hash
    -- for the same request in flight, NULL for another one in flight. A completed movement
    -- is kept as {status, transaction_id}; its response then carries the posting again.
    CREATE FUNCTION idempotency_begin(p_scope text, p_key text, p_hash text, p_stale_seconds int) RETURNS jsonb
    LANGUAGE plpgsql AS $$
    DECLARE
      held idempotency_keys;
    BEGIN
      IF NOT pg_try_advisory_xact_lock(hashtextextended(p_scope || '/' || p_key || '/' || p_hash, 0)) THEN
        RETURN jsonb_build_object('request_hash', p_hash, 'state', 'IN_PROGRESS');
      END IF;
      IF NOT pg_try_advisory_xact_lock(hashtextextended(p_scope || '/' || p_key, 0)) THEN
        RETURN jsonb_build_object('request_hash', NULL, 'state', 'IN_PROGRESS');
      END IF;
      SELECT * INTO held FROM idempotency_keys WHERE scope = p_scope AND key = p_key FOR UPDATE;
      IF held.id IS NULL OR held.expires_at < now()
         OR (held.state = 'IN_PROGRESS' AND held.request_hash = p_hash
             AND held.created_at < now() - make_interval(secs => p_stale_seconds)) THEN
        RETURN NULL;
      END IF;
      RETURN jsonb_build_object('request_hash', held.request_hash, 'state', held.state, 'response',
        CASE WHEN held.response_body->>'transaction_id' IS NOT NULL
             THEN held.response_body || jsonb_build_object('posting', ledger_posting_of((held.response_body->>'transaction_id')::uuid))
             ELSE held.response_body END);
    END $$;

    -- Stores p_response ({status, ...}) as the COMPLETED response of the key taken by
    -- idempotency_begin in this transaction, kept p_ttl_seconds.
    CREATE FUNCTION idempotency_finish(p_scope text, p_key text, p_hash text, p_response jsonb, p_ttl_seconds int) RETURNS void
    LANGUAGE sql AS $$
      INSERT INTO idempotency_keys (id, scope, key, request_hash, state, response_status, response_body, expires_at)
      VALUES (gen_random_uuid(), p_scope, p_key, p_hash, 'COMPLETED', (p_response->>'status')::int, p_response,
              now() + make_interval(secs => p_ttl_seconds))
      ON CONFLICT (scope, key) DO UPDATE
        SET id = EXCLUDED.id, request_hash = EXCLUDED.request_hash, state = 'COMPLETED',
            response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
            created_at = now(), expires_at = EXCLUDED.expires_at
    $$;

    -- ledger_move under an Idempotency-Key, in one statement. Returns {held: <key>} when
    -- another request holds the key (nothing else happens). Otherwise moves and returns
    -- {status: 201, posting}, kept with the key as {status: 201, transaction_id} (the
    -- posting is rebuilt for a replay: ledger_posting_of), or returns and keeps a
    -- refusal as {status, refusal: {code, status, detail, pointer}, context: p_context}
    -- (what the service needs to render it again: its request id and path).
    CREATE FUNCTION ledger_move_keyed(
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
    END $$;

    -- Stores p_response for a request that failed before reaching the ledger, under the
    -- same rules: NULL when stored, otherwise the key as another request holds it.
    CREATE FUNCTION idempotency_store(
      p_scope text, p_key text, p_hash text, p_ttl_seconds int, p_stale_seconds int, p_response jsonb
    ) RETURNS jsonb LANGUAGE plpgsql AS $$
    DECLARE
      held jsonb := idempotency_begin(p_scope, p_key, p_hash, p_stale_seconds);
    BEGIN
      IF held IS NULL THEN
        PERFORM idempotency_finish(p_scope, p_key, p_hash, p_response, p_ttl_seconds);
      END IF;
      RETURN held;
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION IF EXISTS idempotency_store(text, text, text, int, int, jsonb);
    DROP FUNCTION IF EXISTS ledger_move_keyed(text, text, text, int, int, jsonb, uuid, text, jsonb);
    DROP FUNCTION IF EXISTS idempotency_finish(text, text, text, jsonb, int);
    DROP FUNCTION IF EXISTS idempotency_begin(text, text, text, int);
    DROP FUNCTION IF EXISTS ledger_posting_of(uuid);
  `);
}
