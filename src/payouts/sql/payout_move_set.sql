-- A batch of payout moves applied set-wise (payout_move_batch): each move exactly as
-- payout_move applies it (its refusal by payout_move_refusal, which changes nothing; a
-- completion whose receiver is no longer ACTIVE failed instead, RECEIVER_NOT_ACTIVE; the
-- step's posting by payout_step_posting; the payout's new state; its event), by a fixed
-- number of statements whatever the number of moves. NULL, having written nothing, when a
-- payout is named twice (its second move depends on its first) or the ledger would refuse a
-- posting (a bug, which payout_move raises): the batch then applies its moves one by one.
--
-- p_moves as payout_move_batch takes them; the caller has locked every payout they name
-- and, when a move leaves transit, every account in p_ids (the wallets, then the business's
-- own, each ascending id, FOR NO KEY UPDATE). The bulk payouts' counts are the caller's. Returns the moves' results in order.
--
-- The statements: 1. the payouts, their customers, wallets and creations' references, each
-- table read by key once; 2. the plan (each move's refusal, target, reference, the wallet's
-- number its event shows), into arrays, reading no table; 3. the postings (ledger_move_set);
-- 4. the payouts' states; 5. their events (payout_event_object, event_emit_set); 6. the results.
CREATE OR REPLACE FUNCTION payout_move_set(p_business uuid, p_moves jsonb, p_ids uuid[]) RETURNS jsonb LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  moved_at timestamptz;
  twice boolean;
  -- Every move, in order: its result when refused.
  refusals jsonb[];
  -- The moves allowed, in order: the payout and its fields, the target and failure code, the reference of a step with no posting.
  ids uuid[]; targets text[]; codes text[]; amounts numeric[]; currencies text[]; customers uuid[]; wallets uuid[];
  externals text[]; purposes text[]; creations uuid[]; references_ text[]; wallet_numbers text[]; ks int[];
  movements jsonb;
  postings jsonb;
  outcomes jsonb;
  -- The rows read, by id (statement 1).
  named uuid[]; found jsonb; customer_ids uuid[]; wallet_ids uuid[]; creation_ids uuid[];
  customer_states jsonb; wallet_rows jsonb; creation_references jsonb;
BEGIN
  -- 1. The rows the moves read, each table by its key in one statement and kept as
  -- {id: [fields]}, so that the plan reads no table: a table joined with the moves is
  -- planned as a loop over both (ledger_move_set), and on Citus only a statement on one
  -- table by the business as a value has its plan cached (docs/scale-out.md).
  named := ARRAY(SELECT DISTINCT request_uuid(x->>'payout_id') FROM jsonb_array_elements(p_moves) x);
  SELECT jsonb_object_agg(id, jsonb_build_array(status, amount, currency, customer_id, wallet_id, external_reference,
                                                purpose, creation_transaction_id))
    INTO found FROM payouts WHERE business_id = p_business AND id = ANY(named);
  SELECT array_agg((v->>3)::uuid), array_agg((v->>4)::uuid), array_agg((v->>7)::uuid) INTO customer_ids, wallet_ids, creation_ids
    FROM jsonb_each(coalesce(found, '{}')) e(k, v);
  SELECT jsonb_object_agg(id, status) INTO customer_states
    FROM customers WHERE business_id = p_business AND id = ANY(customer_ids);
  SELECT jsonb_object_agg(id, jsonb_build_array(status, account_number)) INTO wallet_rows
    FROM accounts WHERE business_id = p_business AND id = ANY(wallet_ids);
  SELECT jsonb_object_agg(id, reference) INTO creation_references
    FROM transactions WHERE business_id = p_business AND id = ANY(creation_ids);
  -- 2. The plan, from those rows alone.
  WITH mv AS (
    SELECT x.n::int AS n, x.m, request_uuid(x.m->>'payout_id') AS payout, ARRAY(SELECT jsonb_array_elements_text(x.m->'from')) AS from_states,
           found->(request_uuid(x.m->>'payout_id')::text) AS f
      FROM jsonb_array_elements(p_moves) WITH ORDINALITY x(m, n)
  ), p AS (
    SELECT mv.*, mv.f->>0 AS status, (mv.f->>1)::numeric AS amount, mv.f->>2 AS currency, (mv.f->>3)::uuid AS customer_id,
           (mv.f->>4)::uuid AS wallet_id, mv.f->>5 AS external_reference, mv.f->>6 AS purpose, (mv.f->>7)::uuid AS creation_transaction_id
      FROM mv
  ), s AS MATERIALIZED (
    SELECT p.n, p.payout, p.status, p.amount, p.currency, p.customer_id, p.wallet_id, p.external_reference, p.purpose, p.creation_transaction_id,
           CASE WHEN p.status IS NOT NULL THEN p.payout END AS id,
           payout_move_refusal(p.payout, p.status, p.from_states, p.m->>'to') AS refusal,
           CASE WHEN g.gone THEN 'FAILED' ELSE p.m->>'to' END AS target,
           CASE WHEN g.gone THEN 'RECEIVER_NOT_ACTIVE' ELSE p.m->>'failure_code' END AS code
      FROM p CROSS JOIN LATERAL (SELECT p.m->>'to' = 'COMPLETED' AND p.status IS NOT NULL
                                        AND payout_receiver_gone(customer_states->>(p.customer_id::text), wallet_rows->(p.wallet_id::text)->>0) AS gone) g
  )
  SELECT count(DISTINCT s.payout) < count(*),
         array_agg(s.refusal ORDER BY s.n),
         array_agg(s.id ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(s.target ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(CASE WHEN s.target = 'FAILED' THEN s.code END ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(s.amount ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(s.currency ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(s.customer_id ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(s.wallet_id ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(s.external_reference ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(s.purpose ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(s.creation_transaction_id ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(CASE WHEN (SELECT type FROM payout_step_posting(s.target)) IS NULL
                        THEN creation_references->>(s.creation_transaction_id::text) END ORDER BY s.n) FILTER (WHERE s.refusal IS NULL),
         array_agg(wallet_rows->(s.wallet_id::text)->>1 ORDER BY s.n) FILTER (WHERE s.refusal IS NULL)
    INTO twice, refusals, ids, targets, codes, amounts, currencies, customers, wallets, externals, purposes, creations, references_, wallet_numbers
    FROM s;
  IF twice THEN
    RETURN NULL;
  END IF;
  IF ids IS NOT NULL THEN
    -- 3. The postings of the steps that move money, in move order; ks[k] is move k's posting's place among them.
    SELECT jsonb_agg(jsonb_build_object('type', p.type, 'sides', jsonb_build_array(p.debit_kind, NULL, p.credit_kind,
                                          CASE WHEN p.credit_kind = 'WALLET' THEN u.wallet END),
                       'request', jsonb_build_object('amount', u.amount::text, 'currency', u.currency, 'external_reference', u.external,
                                                     'notes', u.purpose, 'original_transaction_id', u.creation)) ORDER BY u.k)
      INTO movements
      FROM ROWS FROM (unnest(targets), unnest(wallets), unnest(amounts), unnest(currencies), unnest(externals), unnest(purposes), unnest(creations))
             WITH ORDINALITY u(target, wallet, amount, currency, external, purpose, creation, k)
      CROSS JOIN LATERAL payout_step_posting(u.target) p
     WHERE p.type IS NOT NULL;
    IF movements IS NOT NULL THEN
      postings := ledger_move_set(p_business, movements, p_ids)::jsonb;
      IF postings IS NULL THEN
        RETURN NULL;
      END IF;
    END IF;
    ks := ARRAY(SELECT CASE WHEN p.type IS NULL THEN NULL ELSE count(p.type) OVER (ORDER BY u.k) END
                  FROM unnest(targets) WITH ORDINALITY u(target, k) CROSS JOIN LATERAL payout_step_posting(u.target) p ORDER BY u.k);
    -- 4. The payouts' states; the clock's time as a value (on Citus an UPDATE may call no volatile function).
    moved_at := clock_timestamp();
    SELECT jsonb_object_agg(u.id, jsonb_build_array(u.target, u.code, postings->(u.kp - 1)->>'id'))
      INTO outcomes FROM ROWS FROM (unnest(ids), unnest(targets), unnest(codes), unnest(ks)) u(id, target, code, kp);
    UPDATE payouts SET status = outcomes->(id::text)->>0, failure_code = outcomes->(id::text)->>1,
                       outcome_transaction_id = (outcomes->(id::text)->>2)::uuid, updated_at = moved_at
     WHERE business_id = p_business AND id = ANY(ids);
    -- 5. Their events, as payout_event emits each, in move order.
    PERFORM event_emit_set(p_business, array_agg('payout.' || lower(u.target) ORDER BY u.k),
             array_agg(payout_event_object(u.id, coalesce(u.reference, postings->(u.kp - 1)->>'reference'), u.target, u.amount, u.currency,
                                           u.customer, u.number, u.external, u.code, moved_at)
                       ORDER BY u.k))
       FROM ROWS FROM (unnest(ids), unnest(targets), unnest(codes), unnest(amounts), unnest(currencies), unnest(customers),
                       unnest(wallet_numbers), unnest(externals), unnest(references_), unnest(ks))
              WITH ORDINALITY u(id, target, code, amount, currency, customer, number, external, reference, kp, k);
  END IF;
  -- 6. The results, in move order: payout_move's.
  RETURN (SELECT jsonb_agg(coalesce(r.refusal, jsonb_build_object('payout', jsonb_build_object('id', r.payout, 'status', outcomes->(r.payout::text)->>0),
                                                                   'posted', (SELECT type FROM payout_step_posting(outcomes->(r.payout::text)->>0))))
                           ORDER BY r.n)
            FROM (SELECT u.n, u.refusal, request_uuid(x.m->>'payout_id') AS payout
                    FROM unnest(refusals) WITH ORDINALITY u(refusal, n)
                    JOIN jsonb_array_elements(p_moves) WITH ORDINALITY x(m, n) ON x.n = u.n) r);
END $$;
