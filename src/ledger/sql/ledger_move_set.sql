-- The ledger's posting of the movements whose accounts their request names: a single one
-- (ledger_move, ledger_move_keyed: a set of one), a batch (src/ledger/batching.ts) or a
-- capability's own (payout_create_set, payout_move_set), by a fixed number of statements
-- whatever their number. An item's type is one of ledger_batched_movements, or the item names
-- its sides itself, `sides`: [debit kind, debit, credit kind, credit] as ledger_post takes
-- them, its request may then carry `original_transaction_id`; any other raises (a refund's
-- locks, its original first, would not keep the order below).
--
-- p_items is a JSON array of {type, request, key, sides?}; key is null or the key's arguments
-- [scope, key, hash, ttl_seconds, stale_seconds, context]. Each item is answered exactly as it
-- would be alone, posted after the items before it: its own ledger transaction and entries with
-- their balances after and its own Idempotency-Key record, or its own refusal, which changes
-- nothing and keeps no other item from posting. Returns the answers in item order (json): a
-- posting (ledger_posting_object) or {refusal}; under a key {posting}, {refusal, context} or
-- {held} (the key another session holds, or completed: its outcome replayed), as
-- ledger_keyed_open and ledger_keyed_close answer; an item whose key an item before it names is
-- a replay of that item. The rules and their words are ledger_post's, in its order, and
-- ledger_move's SAME_WALLET_TRANSFER first; a side's running balance by ledger_side_refusal.
--
-- The statements:
--   1. the keys' locks (idempotency_lock), then their rows (a new key has none: read after the
--      locks, as idempotency_enter reads them); a key held or with a row enters alone
--      (ledger_keyed_open);
--   2. the wallets named, locked (ascending id), then the accounts (the wallets and the
--      business's own) read into arrays, one per column;
--   3. the plan, over the arrays and the items alone: each movement's accounts (ledger_sides),
--      the refusals no balance decides, the running balance and entry number of each account in
--      item order (the debit before the credit), each account's last entry, the ids and
--      references drawn. When the running balances refuse a movement, a walk over the movements
--      in item order decides each refusal (those after it depend on it), and the plan runs again;
--   4. the business's own accounts the movements name, locked (ascending id): when one changed
--      since it was read, steps 2 and 3 run again on the locked rows;
--   5. the transactions; 6. the entries; 7. the balances and last entries; 8. the keys' rows;
--   9. the answers, from the arrays.
-- The own accounts are the business's hot rows: every batch of funds waits for the operational
-- account's lock. Locked last, they are held for steps 4 to 9 only, while the next batch plans
-- (openapi/DESIGN.md, "Set-based batch posting"); nothing before step 5 names them in a foreign
-- key, which would share-lock a hot row another batch holds (a multixact per row). Lock order,
-- ledger_post's: the wallets, then the own accounts, each ascending id, FOR NO KEY UPDATE.
-- Every entry is stamped with one time, greatest(now(), the last entry time of any account it
-- moves, read under its lock), to the millisecond: each account's entries follow each other in
-- time and number (ledger_post). A reference drawn that the business has already (about one
-- posting in 10^12 / its transactions) is drawn again. Each statement on a table reads or
-- writes that table alone, by the business as a value, passes no row as a value and draws
-- nothing volatile (the plan, which reads no table, draws the ids and references): served by
-- the business's node, and planned once per connection (docs/scale-out.md, "Statements Citus
-- plans once").
CREATE OR REPLACE FUNCTION ledger_move_set(p_business uuid, p_items jsonb) RETURNS json LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  -- The transaction's time, read once: Citus evaluates a clock inside a write before sending it
  -- to the shard, which keeps that statement from its cached plan (docs/scale-out.md).
  v_now timestamptz := now();
  n_items int := jsonb_array_length(p_items);
  -- Every item, in order: its answer decided by its key before the plan ({held}; '{}' for an
  -- item whose key an item before it names, answered last), and whether its key is new
  -- (true), taken over (false) or absent (NULL).
  answers jsonb[] := array_fill(NULL::jsonb, ARRAY[n_items]);
  fresh boolean[] := array_fill(NULL::boolean, ARRAY[n_items]);
  again int[]; keyed int[]; locks text[]; all_scopes text[]; all_keys text[]; taken jsonb[];
  i int; k jsonb; entry jsonb; response jsonb;
  wallet_ids uuid[];
  -- The accounts as read, one array per column, and the business's own, kind -> id.
  a_ids uuid[]; a_numbers text[]; a_kinds text[]; a_currencies text[]; a_last_ats timestamptz[]; a_statuses text[];
  a_overdrafts boolean[]; a_balances numeric[]; a_last_numbers bigint[]; own jsonb;
  -- The refusals, {item number: refusal}: those no balance decides, and those the balances decide.
  fixed jsonb; late jsonb; first_late int; walked boolean;
  -- The movements no refusal stops before the balances, in item order, and the walk over them.
  s_ns int[]; s_ds uuid[]; s_cs uuid[]; s_amounts numeric[]; s_currencies text[];
  acc jsonb; w record; d_bal numeric; c_bal numeric; d_problem text; c_problem text;
  own_ids uuid[]; own_locked boolean := false; locked jsonb; moved boolean;
  at timestamptz;
  added int;
  -- The plan, one element per movement posted, in item order ...
  ns int[]; tids uuid[]; refs text[]; types text[]; amounts numeric[]; currencies text[]; externals text[]; notes text[];
  originals uuid[];
  ds uuid[]; cs uuid[]; d_afters numeric[]; c_afters numeric[]; d_numbers bigint[]; c_numbers bigint[];
  d_accounts text[]; d_kinds text[]; c_accounts text[]; c_kinds text[];
  -- ... and the accounts moved, with each one's balance and number after its last entry of
  -- the batch as {id: [balance, number]}: the UPDATE looks each row's up by key (a join of
  -- the table with arrays was planned as a loop over both, quadratic in the batch).
  l_ids uuid[]; lasts jsonb;
  inserted uuid[];
  -- The keys' outcomes, one element per item under a key it enters here.
  k_ns int[]; k_responses jsonb[];
  results json;
BEGIN
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_items) x WHERE NOT x->>'type' = ANY(ledger_batched_movements()) AND x->'sides' IS NULL) THEN
    RAISE EXCEPTION 'ledger_move_set: only % are posted set-wise, or items that name their sides',
      array_to_string(ledger_batched_movements(), ', ');
  END IF;
  -- 1. The keys. Both locks of each key taken (idempotency_lock); an item whose key an item
  -- before it names is answered last, a replay of it. A key whose locks another session
  -- holds, or that has a row, enters as a single movement's does (ledger_keyed_open): {held},
  -- or taken over (fresh false).
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_items) x WHERE jsonb_typeof(x->'key') = 'array') THEN
    SELECT array_agg(y.n) FILTER (WHERE NOT y.first), array_agg(y.n) FILTER (WHERE y.first),
           array_agg(idempotency_lock(y.k->>0, y.k->>1, y.k->>2)) FILTER (WHERE y.first),
           array_agg(y.k->>0) FILTER (WHERE y.first), array_agg(y.k->>1) FILTER (WHERE y.first)
      INTO again, keyed, locks, all_scopes, all_keys
      FROM (SELECT x.n::int AS n, x.i->'key' AS k,
                   row_number() OVER (PARTITION BY x.i->'key'->>0, x.i->'key'->>1 ORDER BY x.n) = 1 AS first
              FROM jsonb_array_elements(p_items) WITH ORDINALITY x(i, n) WHERE jsonb_typeof(x.i->'key') = 'array') y;
    SELECT array_agg(jsonb_build_array(scope, key)) INTO taken
      FROM idempotency_keys WHERE business_id = p_business AND scope = ANY(all_scopes) AND key = ANY(all_keys);
    FOR i IN SELECT u.n FROM unnest(keyed, locks, all_scopes, all_keys) u(n, lock, scope, key)
              WHERE u.lock IS NOT NULL OR jsonb_build_array(u.scope, u.key) = ANY(taken) LOOP
      k := p_items->(i - 1)->'key';
      entry := ledger_keyed_open(p_business, k->>0, k->>1, k->>2, (k->>4)::int);
      IF entry ? 'held' THEN answers[i] := entry; ELSE fresh[i] := (entry->>'fresh')::boolean; END IF;
    END LOOP;
    FOR i IN SELECT unnest(keyed) LOOP
      IF answers[i] IS NULL AND fresh[i] IS NULL THEN fresh[i] := true; END IF;
    END LOOP;
    FOR i IN SELECT unnest(again) LOOP
      answers[i] := '{}';
    END LOOP;
  END IF;
  -- The wallets the movements name, locked first (ascending id): an id named as a wallet that
  -- is not one is refused, and is not locked out of order.
  WITH named AS MATERIALIZED (
    SELECT v.kind, v.named
      FROM jsonb_array_elements(p_items) WITH ORDINALITY x(i, n)
      CROSS JOIN LATERAL ledger_sides(x.i->>'type', x.i->'request') s
      CROSS JOIN LATERAL (VALUES (coalesce(x.i->'sides'->>0, s.debit_kind), coalesce(x.i->'sides'->>1, s.debit)),
                                 (coalesce(x.i->'sides'->>2, s.credit_kind), coalesce(x.i->'sides'->>3, s.credit))) v(kind, named)
     WHERE answers[x.n::int] IS NULL
  )
  SELECT array_agg(DISTINCT request_uuid(named.named)) FILTER (WHERE named.kind = 'WALLET') INTO wallet_ids FROM named;
  PERFORM 1 FROM accounts WHERE business_id = p_business AND id = ANY(wallet_ids) AND kind = 'WALLET' ORDER BY id FOR NO KEY UPDATE;

  -- 2. The plan, over the items and the accounts' arrays alone; again once the balances' walk
  -- refused movements, and once the own accounts are locked if they changed.
  <<planning>>
  LOOP
    SELECT array_agg(id), array_agg(account_number), array_agg(kind), array_agg(currency), array_agg(last_entry_at),
           array_agg(status), array_agg(can_overdraft), array_agg(balance), array_agg(last_entry_number),
           jsonb_object_agg(kind, id) FILTER (WHERE kind <> 'WALLET')
      INTO a_ids, a_numbers, a_kinds, a_currencies, a_last_ats, a_statuses, a_overdrafts, a_balances, a_last_numbers, own
      FROM accounts WHERE business_id = p_business AND (id = ANY(wallet_ids) OR kind <> 'WALLET');
    late := '{}';
    walked := false;
    LOOP
      WITH a AS (
        SELECT * FROM unnest(a_ids, a_numbers, a_kinds, a_currencies, a_last_ats, a_statuses, a_overdrafts, a_balances, a_last_numbers)
                        a(id, account_number, kind, currency, last_entry_at, status, can_overdraft, balance, last_entry_number)
      ), it AS MATERIALIZED (
        SELECT x.n::int AS n, x.i->>'type' AS type, x.i->'request' AS r,
               ledger_amount_problem(x.i->'request'->>'amount') AS problem,
               coalesce(x.i->'sides'->>0, s.debit_kind) AS debit_kind, coalesce(x.i->'sides'->>1, s.debit) AS debit,
               coalesce(x.i->'sides'->>2, s.credit_kind) AS credit_kind, coalesce(x.i->'sides'->>3, s.credit) AS credit
          FROM jsonb_array_elements(p_items) WITH ORDINALITY x(i, n)
          CROSS JOIN LATERAL ledger_sides(x.i->>'type', x.i->'request') s
         WHERE answers[x.n::int] IS NULL
      ), m AS (
        SELECT it.*, CASE WHEN it.problem IS NULL THEN round((it.r->>'amount')::numeric, 2) END AS amount,
               CASE WHEN it.debit_kind = 'WALLET' THEN request_uuid(it.debit) ELSE (own->>it.debit_kind)::uuid END AS d,
               CASE WHEN it.credit_kind = 'WALLET' THEN request_uuid(it.credit) ELSE (own->>it.credit_kind)::uuid END AS c
          FROM it
      ), st AS (
        -- ledger_post's refusals that no balance decides, in its order.
        SELECT m.*, d.account_number AS d_account, d.kind AS d_kind, c.account_number AS c_account, c.kind AS c_kind,
               coalesce(m.r->>'currency', c.currency) AS currency, CASE
          WHEN m.type = 'TRANSFER' AND m.debit = m.credit
            THEN ledger_refusal('SAME_WALLET_TRANSFER', 'The source and destination wallets must differ.')
          WHEN m.debit_kind = 'WALLET' AND d.kind IS DISTINCT FROM 'WALLET'
            THEN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', m.debit))
          WHEN m.credit_kind = 'WALLET' AND (c.kind IS DISTINCT FROM 'WALLET' OR m.c = m.d)
            THEN ledger_refusal('WALLET_NOT_FOUND', format('No wallet %s for this business.', m.credit))
          WHEN d.id IS NULL OR c.id IS NULL THEN ledger_refusal('BUSINESS_NOT_FOUND', format('No business %s.', p_business))
          WHEN m.problem IS NOT NULL THEN ledger_refusal('VALIDATION_ERROR', m.problem, '/amount')
          WHEN ledger_side_refusal(d.kind, d.status, d.can_overdraft, 0, false) = 'WALLET_NOT_ACTIVE'
            THEN ledger_refusal('WALLET_NOT_ACTIVE', format('%s is %s; only ACTIVE wallets move money.', ledger_describe(d.kind, d.account_number), d.status))
          WHEN ledger_side_refusal(c.kind, c.status, c.can_overdraft, 0, false) = 'WALLET_NOT_ACTIVE'
            THEN ledger_refusal('WALLET_NOT_ACTIVE', format('%s is %s; only ACTIVE wallets move money.', ledger_describe(c.kind, c.account_number), c.status))
          END AS fixed
          FROM m LEFT JOIN a d ON d.id = m.d LEFT JOIN a c ON c.id = m.c
      ), e AS (
        SELECT st.n, v.side, v.account, CASE v.side WHEN 0 THEN -st.amount ELSE st.amount END AS delta
          FROM st CROSS JOIN LATERAL (VALUES (0, st.d), (1, st.c)) v(side, account)
         WHERE st.fixed IS NULL AND NOT late ? st.n::text
      ), run AS (
        -- Each side's balance and entry number after it: a window per account in item order.
        SELECT e.n, e.side, e.account, a.kind, a.currency, a.last_entry_at,
               a.balance + sum(e.delta) OVER w AS after,
               a.last_entry_number + row_number() OVER w AS number,
               row_number() OVER w = count(*) OVER (PARTITION BY e.account) AS last,
               ledger_side_refusal(a.kind, a.status, a.can_overdraft, a.balance + sum(e.delta) OVER w, e.side = 0) AS problem
          FROM e JOIN a ON a.id = e.account
        WINDOW w AS (PARTITION BY e.account ORDER BY e.n, e.side)
      ), plan AS (
        SELECT st.n, st.type, st.r, st.amount, st.currency, st.d, st.c, st.d_account, st.d_kind, st.c_account, st.c_kind,
               d.after AS d_after, c.after AS c_after, d.number AS d_number, c.number AS c_number,
               d.problem IS NOT NULL OR c.problem IS NOT NULL AS refused
          FROM st JOIN run d ON d.n = st.n AND d.side = 0 JOIN run c ON c.n = st.n AND c.side = 1
         ORDER BY st.n
      )
      SELECT (SELECT min(plan.n) FILTER (WHERE plan.refused) FROM plan),
             (SELECT array_agg(st.n ORDER BY st.n) FROM st WHERE st.fixed IS NULL),
             (SELECT array_agg(st.d ORDER BY st.n) FROM st WHERE st.fixed IS NULL),
             (SELECT array_agg(st.c ORDER BY st.n) FROM st WHERE st.fixed IS NULL),
             (SELECT array_agg(st.amount ORDER BY st.n) FROM st WHERE st.fixed IS NULL),
             (SELECT array_agg(st.currency ORDER BY st.n) FROM st WHERE st.fixed IS NULL),
             (SELECT jsonb_object_agg(st.n, st.fixed) FILTER (WHERE st.fixed IS NOT NULL) FROM st),
             (SELECT array_agg(DISTINCT a.id) FROM st CROSS JOIN LATERAL unnest(ARRAY[st.d, st.c]) x(id) JOIN a ON a.id = x.id
               WHERE st.fixed IS NULL AND a.kind <> 'WALLET'),
             (SELECT greatest(now(), max(run.last_entry_at))::timestamptz(3) FROM run),
             (SELECT array_agg(run.account) FROM run WHERE run.last),
             (SELECT jsonb_object_agg(run.account, jsonb_build_array(run.after, run.number)) FROM run WHERE run.last),
             array_agg(plan.n), array_agg(time_ordered_uuid()), array_agg('TXN' || lpad(floor(random() * 1e12)::bigint::text, 12, '0')),
             array_agg(plan.type), array_agg(plan.amount), array_agg(plan.currency),
             array_agg(plan.r->>'external_reference'), array_agg(plan.r->>'notes'), array_agg((plan.r->>'original_transaction_id')::uuid),
             array_agg(plan.d), array_agg(plan.c), array_agg(plan.d_after), array_agg(plan.c_after),
             array_agg(plan.d_number), array_agg(plan.c_number),
             array_agg(plan.d_account), array_agg(plan.d_kind), array_agg(plan.c_account), array_agg(plan.c_kind)
        INTO first_late, s_ns, s_ds, s_cs, s_amounts, s_currencies, fixed, own_ids, at, l_ids, lasts,
             ns, tids, refs, types, amounts, currencies, externals, notes, originals, ds, cs, d_afters, c_afters, d_numbers, c_numbers,
             d_accounts, d_kinds, c_accounts, c_kinds
        FROM plan;
      EXIT WHEN first_late IS NULL;
      IF walked THEN
        RAISE EXCEPTION 'ledger_move_set: the plan refuses movement % that the walk posted', first_late;
      END IF;
      -- The balances refuse a movement, and whether the ones after it post depends on it: a walk
      -- over the movements in item order, each side's balance moved by the movements posted before
      -- it alone, decides each refusal; the plan then runs once more without the refused ones.
      SELECT jsonb_object_agg(u.id, jsonb_build_array(u.kind, u.number, u.currency, u.status, u.overdraft, u.balance)) INTO acc
        FROM unnest(a_ids, a_kinds, a_numbers, a_currencies, a_statuses, a_overdrafts, a_balances) u(id, kind, number, currency, status, overdraft, balance);
      FOR w IN SELECT * FROM unnest(s_ns, s_ds, s_cs, s_amounts, s_currencies) u(n, d, c, amount, currency) LOOP
        d_bal := (acc->(w.d::text)->>5)::numeric - w.amount;
        c_bal := (acc->(w.c::text)->>5)::numeric + w.amount;
        d_problem := ledger_side_refusal(acc->(w.d::text)->>0, acc->(w.d::text)->>3, (acc->(w.d::text)->>4)::boolean, d_bal, true);
        c_problem := ledger_side_refusal(acc->(w.c::text)->>0, acc->(w.c::text)->>3, (acc->(w.c::text)->>4)::boolean, c_bal, false);
        IF d_problem IS NULL AND c_problem IS NULL THEN
          acc := jsonb_set(jsonb_set(acc, ARRAY[w.d::text, '5'], to_jsonb(d_bal)), ARRAY[w.c::text, '5'], to_jsonb(c_bal));
        ELSIF d_problem = 'INSUFFICIENT_FUNDS' THEN
          late := late || jsonb_build_object(w.n, ledger_refusal('INSUFFICIENT_FUNDS', format('%s has %s %s; %s %s was requested.',
                    ledger_describe(acc->(w.d::text)->>0, acc->(w.d::text)->>1), d_bal + w.amount, acc->(w.d::text)->>2, w.amount, w.currency)));
        ELSE
          late := late || jsonb_build_object(w.n, ledger_refusal('BALANCE_LIMIT_EXCEEDED', 'The movement would take a balance beyond ±999999999999999.99.'));
        END IF;
      END LOOP;
      walked := true;
    END LOOP;
    EXIT planning WHEN own_locked OR own_ids IS NULL;
    -- The business's own accounts the movements name, locked last (the hot rows, which every
    -- batch of the business waits for); planned again when they changed since they were read.
    PERFORM 1 FROM accounts WHERE business_id = p_business AND id = ANY(own_ids) ORDER BY id FOR NO KEY UPDATE;
    own_locked := true;
    SELECT jsonb_object_agg(id, jsonb_build_array(balance, last_entry_number, last_entry_at, status, can_overdraft)) INTO locked
      FROM accounts WHERE business_id = p_business AND id = ANY(own_ids);
    SELECT bool_or(locked->(u.id::text) IS DISTINCT FROM jsonb_build_array(u.balance, u.number, u.at, u.status, u.overdraft)) INTO moved
      FROM unnest(a_ids, a_balances, a_last_numbers, a_last_ats, a_statuses, a_overdrafts) u(id, balance, number, at, status, overdraft)
     WHERE u.id = ANY(own_ids);
    EXIT planning WHEN NOT moved;
  END LOOP;
  fixed := coalesce(fixed, '{}') || late;
  IF ns IS NOT NULL THEN
    -- 3. The transactions; a reference drawn that another transaction of the business has
    -- (about one posting in 10^12 / the business's transactions) is drawn again.
    LOOP
      INSERT INTO transactions (id, reference, business_id, type, status, amount, currency,
                                debit_account_id, credit_account_id, external_reference, notes, original_transaction_id, created_at)
      SELECT u.id, u.reference, p_business, u.type, 'SUCCESS', u.amount, u.currency, u.d, u.c, u.external, u.notes, u.original, at
        FROM unnest(tids, refs, types, amounts, currencies, ds, cs, externals, notes, originals)
               u(id, reference, type, amount, currency, d, c, external, notes, original)
       WHERE inserted IS NULL OR NOT u.id = ANY(inserted)
      ON CONFLICT (reference, business_id) DO NOTHING;
      GET DIAGNOSTICS added = ROW_COUNT;
      EXIT WHEN added = cardinality(tids) - coalesce(cardinality(inserted), 0);
      SELECT array_agg(id) INTO inserted FROM transactions WHERE business_id = p_business AND id = ANY(tids);
      SELECT array_agg(CASE WHEN u.id = ANY(inserted) THEN u.reference ELSE 'TXN' || lpad(floor(random() * 1e12)::bigint::text, 12, '0') END
                       ORDER BY u.o)
        INTO refs FROM unnest(tids, refs) WITH ORDINALITY u(id, reference, o);
    END LOOP;
    -- 4. The entries.
    INSERT INTO ledger_entries (business_id, transaction_id, account_id, entry_number, amount, balance_after, created_at)
    SELECT p_business, u.id, u.d, u.number, -u.amount, u.after, at FROM unnest(tids, ds, d_numbers, amounts, d_afters) u(id, d, number, amount, after)
    UNION ALL
    SELECT p_business, u.id, u.c, u.number, u.amount, u.after, at FROM unnest(tids, cs, c_numbers, amounts, c_afters) u(id, c, number, amount, after);
    -- 5. The balances and last entries.
    UPDATE accounts SET balance = (lasts->(id::text)->>0)::numeric, last_entry_number = (lasts->(id::text)->>1)::bigint,
                        last_entry_at = at, updated_at = v_now
     WHERE business_id = p_business AND id = ANY(l_ids);
  END IF;
  -- 6. The keys' rows, through the kernel: each outcome kept as ledger_keyed_close keeps it (a
  -- posting as {transaction_id}, a refusal with its request's context); a new key's row in one
  -- statement, a key taken over by its own.
  IF keyed IS NOT NULL THEN
    SELECT array_agg(x.n ORDER BY x.n),
           array_agg(CASE WHEN fixed ? x.n::text THEN fixed->(x.n::text) || jsonb_build_object('context', x.i->'key'->5)
                          ELSE jsonb_build_object('transaction_id', p.id) END ORDER BY x.n)
      INTO k_ns, k_responses
      FROM jsonb_array_elements(p_items) WITH ORDINALITY x(i, n)
      LEFT JOIN unnest(ns, tids) p(n, id) ON p.n = x.n
     WHERE fresh[x.n::int] IS NOT NULL;
    PERFORM idempotency_finish_set(p_business, array_agg(CASE WHEN fresh[u.n] THEN x.k->>0 END), array_agg(x.k->>1), array_agg(x.k->>2),
                                   array_agg((x.k->>3)::int), array_agg(u.response))
       FROM unnest(k_ns, k_responses) u(n, response) CROSS JOIN LATERAL (SELECT p_items->(u.n - 1)->'key' AS k) x;
    FOR i, response IN SELECT u.n, u.response FROM unnest(k_ns, k_responses) u(n, response) WHERE NOT fresh[u.n] LOOP
      k := p_items->(i - 1)->'key';
      PERFORM idempotency_leave(p_business, k->>0, k->>1, k->>2, (k->>3)::int, false, response);
    END LOOP;
    -- An item whose key an item before it names: that key's answer now, a replay.
    FOR i IN SELECT unnest(again) LOOP
      k := p_items->(i - 1)->'key';
      answers[i] := ledger_keyed_open(p_business, k->>0, k->>1, k->>2, (k->>4)::int);
    END LOOP;
  END IF;
  -- 7. The answers, in item order: a posting or a refusal; under a key {posting}, {refusal,
  -- context} or {held}, as ledger_move_keyed answers.
  SELECT json_agg(CASE
           WHEN answers[x.n::int] IS NOT NULL THEN answers[x.n::int]::json
           WHEN fixed ? x.n::text AND fresh[x.n::int] IS NOT NULL THEN (fixed->(x.n::text) || jsonb_build_object('context', x.i->'key'->5))::json
           WHEN fixed ? x.n::text THEN (fixed->(x.n::text))::json
           WHEN fresh[x.n::int] IS NOT NULL THEN json_build_object('posting', p.posting)
           ELSE p.posting END ORDER BY x.n)
    INTO results
    FROM jsonb_array_elements(p_items) WITH ORDINALITY x(i, n)
    LEFT JOIN (SELECT u.n, ledger_posting_object(u.id, u.reference, p_business, u.type, 'SUCCESS', u.amount, u.currency,
                                                 u.d, u.c, u.external, u.notes, u.original, NULL, 0.00, at,
                                                 u.d_account, u.d_kind, u.c_account, u.c_kind, u.d_after, u.c_after) AS posting
                 FROM unnest(ns, tids, refs, types, amounts, currencies, externals, notes, originals, ds, cs, d_afters, c_afters,
                             d_accounts, d_kinds, c_accounts, c_kinds)
                        u(n, id, reference, type, amount, currency, external, notes, original, d, c, d_after, c_after,
                          d_account, d_kind, c_account, c_kind)) p ON p.n = x.n;
  RETURN results;
END $$;
