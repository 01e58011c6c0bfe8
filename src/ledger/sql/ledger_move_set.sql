-- Set-based posting of a batch (ledger_move_batch): the batch's movements posted by a fixed
-- number of statements, whatever their number, when no movement of it is refused and every
-- Idempotency-Key of it is new; NULL otherwise, having written nothing, and the batch is
-- then posted movement by movement (ledger_move, ledger_move_keyed), which answers each
-- refusal as a single movement's. The rules are ledger_post's: the accounts a movement
-- names exist, are of the kind it names and are locked; the amount is valid
-- (ledger_amount_problem); each side passes ledger_side_refusal with its running balance.
--
-- p_items as ledger_move_batch takes them (every type one of ledger_batched_movements), or
-- a capability's own movements (a payout's creation and outcomes: payout_create_set,
-- payout_move_set), whose item names its sides itself as ledger_post takes them,
-- `sides`: [debit kind, debit, credit kind, credit], and whose request may carry
-- `original_transaction_id` (ledger_post's p_original); p_ids the accounts the batch may
-- touch, its wallets among them locked by the caller (ascending id, FOR NO KEY UPDATE), the
-- business's own ones among them when an item names one. Returns the items' results in their
-- order, as ledger_move (no key) and ledger_move_keyed ({posting}) answer them, as json.
--
-- The statements, each over the whole batch:
--   1. the keys' locks taken (idempotency_lock), no key twice in the batch; then the keys'
--      rows (none may exist: read after the locks, as idempotency_enter does) and the
--      accounts of p_ids, each table read alone by key into arrays;
--   2. the plan, over those arrays and the items alone: each movement's accounts
--      (ledger_sides), the running balance and entry number of every account over the batch
--      in item order (the debit before the credit), the rules, each account's last entry,
--      the ids and references drawn; into arrays, one element per movement or per account;
--   3. the keys' rows;
--   4. the business's own accounts the batch moves, locked (ascending id), and their sides
--      shifted by what committed to them since the plan read them unlocked: their balances
--      and numbers after, and the rules of their sides again on those balances;
--   5. the transactions; 6. the entries; 7. the accounts' balances and last entries;
--   8. the postings, from the arrays (ledger_posting_object).
-- The own accounts are the business's hot rows: every batch of funds waits for the
-- operational account's lock and holds it until it commits. Locked last, after the plan and
-- the keys, they are held for steps 4 to 8 only, while the next batch plans on the other core
-- (openapi/DESIGN.md, "Set-based batch posting"). Nothing before step 5 names them in a
-- foreign key: a row that did would share-lock a hot row another batch holds, which costs a
-- multixact on every such row. A movement the shifted balance refuses (the account was spent
-- meanwhile), or an own account whose status changed, raises a serialization failure, which
-- rolls the batch back; the service posts it again (src/db/retry.ts), and the new plan sends a
-- refused movement down the movement-by-movement path. A caller that locked the own accounts
-- before (the payouts' batches) sees nothing shifted.
-- A reference drawn that another transaction of the business has (about one posting in
-- 10^12 / the business's transactions) raises, which rolls the batch back; the service then
-- posts its movements one by one, each drawing again (src/ledger/batching.ts).
--
-- Every entry of the batch is stamped with one time, greatest(now(), the last entry time of
-- any account it moves, read under its lock), to the millisecond the column keeps: each
-- account's entries still follow each other in time and number (ledger_post). No statement
-- passes a table's row as a value (a distributed table's row is a shard's row on its node,
-- which no function takes), and each names the business, so that each is served by the
-- business's node (docs/scale-out.md). Each statement on a table reads or writes that table
-- alone, by the business as a value, with no subquery, and draws nothing volatile (the ids,
-- references and times are drawn by the plan, which reads no table): Citus then plans it once
-- per connection rather than at each call (docs/scale-out.md, "Statements a worker plans once").
CREATE OR REPLACE FUNCTION ledger_move_set(p_business uuid, p_items jsonb, p_ids uuid[]) RETURNS json LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  n_items int := jsonb_array_length(p_items);
  -- The business's own accounts among p_ids, kind → id: a side names them by kind.
  own jsonb;
  refused boolean;
  at timestamptz;
  added int;
  -- The plan, one element per movement in item order ...
  ns int[]; tids uuid[]; refs text[]; types text[]; amounts numeric[]; currencies text[]; externals text[]; notes text[];
  originals uuid[];
  ds uuid[]; cs uuid[]; d_afters numeric[]; c_afters numeric[]; d_numbers bigint[]; c_numbers bigint[];
  d_accounts text[]; d_kinds text[]; c_accounts text[]; c_kinds text[];
  k_scopes text[]; k_keys text[]; k_hashes text[]; k_ttls int[];
  -- ... and the accounts moved, with each one's balance and number after its last entry of
  -- the batch as {id: [balance, number]}: the UPDATE looks each row's up by key (a join of
  -- the table with arrays was planned as a loop over both, quadratic in the batch).
  l_ids uuid[]; lasts jsonb;
  -- The business's own accounts the plan read unlocked, {id: [balance, number, status, can_overdraft]},
  -- and, once they are locked, what committed to each since, {id: [balance change, entries]}.
  own_seen jsonb; own_ids uuid[]; shift jsonb; own_last timestamptz; moved boolean;
  -- The accounts of p_ids as read before the plan, one array per column.
  a_ids uuid[]; a_numbers text[]; a_kinds text[]; a_currencies text[]; a_last_ats timestamptz[]; a_statuses text[];
  a_overdrafts boolean[]; a_balances numeric[]; a_last_numbers bigint[];
  -- The batch's keys, and those of them that have a row already, as [scope, key].
  all_scopes text[]; all_keys text[]; taken jsonb[];
  -- The transaction's clock as a value: a write that calls now() is deparsed on every call by Citus.
  changed timestamptz := now();
  results json;
BEGIN
  -- 1. Both locks of every key taken by this session, no key twice.
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_items) i WHERE jsonb_typeof(i->'key') = 'array') THEN
    SELECT bool_or(idempotency_lock(k->>0, k->>1, k->>2) IS NOT NULL) OR count(DISTINCT (k->>0, k->>1)) < count(*),
           array_agg(k->>0), array_agg(k->>1)
      INTO refused, all_scopes, all_keys
      FROM (SELECT i->'key' AS k FROM jsonb_array_elements(p_items) i WHERE jsonb_typeof(i->'key') = 'array') x;
    IF refused THEN
      RETURN NULL;
    END IF;
    -- The keys' rows (none may exist), read after the locks, as idempotency_enter reads them.
    SELECT array_agg(jsonb_build_array(scope, key)) INTO taken
      FROM idempotency_keys WHERE business_id = p_business AND scope = ANY(all_scopes) AND key = ANY(all_keys);
  END IF;
  -- The accounts the batch may touch, read once by key (the plan reads no table).
  SELECT array_agg(id), array_agg(account_number), array_agg(kind), array_agg(currency), array_agg(last_entry_at),
         array_agg(status), array_agg(can_overdraft), array_agg(balance), array_agg(last_entry_number),
         jsonb_object_agg(kind, id) FILTER (WHERE kind <> 'WALLET')
    INTO a_ids, a_numbers, a_kinds, a_currencies, a_last_ats, a_statuses, a_overdrafts, a_balances, a_last_numbers, own
    FROM accounts WHERE business_id = p_business AND id = ANY(p_ids);

  -- 2. The plan. Each movement's two sides (side 0 the debit, 1 the credit) are rows of e;
  -- run gives each row its account's balance and entry number after it (a window per account
  -- in item order); pairs puts the credit's beside its debit (a window in item order).
  WITH it AS (
    SELECT x.n::int AS n, x.i->>'type' AS type, x.i->'request' AS r,
           CASE WHEN jsonb_typeof(x.i->'key') = 'array' THEN x.i->'key' END AS k,
           ledger_amount_problem(x.i->'request'->>'amount') IS NOT NULL AS bad_amount,
           coalesce(x.i->'sides'->>0, s.debit_kind) AS debit_kind, coalesce(x.i->'sides'->>1, s.debit) AS debit,
           coalesce(x.i->'sides'->>2, s.credit_kind) AS credit_kind, coalesce(x.i->'sides'->>3, s.credit) AS credit
      FROM jsonb_array_elements(p_items) WITH ORDINALITY x(i, n)
      CROSS JOIN LATERAL ledger_sides(x.i->>'type', x.i->'request') s
  ), m AS (
    SELECT it.*, CASE WHEN bad_amount THEN NULL ELSE round((r->>'amount')::numeric, 2) END AS amount
      FROM it
  ), e AS (
    SELECT m.n, v.side, v.named, v.account, CASE v.side WHEN 0 THEN -m.amount ELSE m.amount END AS delta
      FROM m CROSS JOIN LATERAL (VALUES
        (0, m.debit_kind, CASE WHEN m.debit_kind = 'WALLET' THEN request_uuid(m.debit) ELSE (own->>m.debit_kind)::uuid END),
        (1, m.credit_kind, CASE WHEN m.credit_kind = 'WALLET' THEN request_uuid(m.credit) ELSE (own->>m.credit_kind)::uuid END)) v(side, named, account)
  ), run AS (
    SELECT e.n, e.side, e.account, a.account_number, a.kind, a.currency, a.last_entry_at,
           a.id IS NULL OR (e.named = 'WALLET') <> (a.kind = 'WALLET')
             OR ledger_side_refusal(a.kind, a.status, a.can_overdraft, a.balance + sum(e.delta) OVER w, e.side = 0) IS NOT NULL AS refused,
           a.balance + sum(e.delta) OVER w AS after,
           a.last_entry_number + row_number() OVER w AS number,
           row_number() OVER w = count(*) OVER (PARTITION BY e.account) AS last,
           a.status, a.can_overdraft, a.balance, a.last_entry_number
      FROM e LEFT JOIN unnest(a_ids, a_numbers, a_kinds, a_currencies, a_last_ats, a_statuses, a_overdrafts, a_balances, a_last_numbers)
                         a(id, account_number, kind, currency, last_entry_at, status, can_overdraft, balance, last_entry_number)
                       ON a.id = e.account
    WINDOW w AS (PARTITION BY e.account ORDER BY e.n, e.side)
  ), pairs AS (
    SELECT run.*, lead(run.account) OVER o AS c, lead(run.after) OVER o AS c_after, lead(run.number) OVER o AS c_number,
           lead(run.account_number) OVER o AS c_account, lead(run.kind) OVER o AS c_kind, lead(run.currency) OVER o AS c_currency
      FROM run
    WINDOW o AS (ORDER BY run.n, run.side)
  ), plan AS (
    SELECT m.n, m.type, m.r, m.k, m.amount, p.account AS d, p.after AS d_after, p.number AS d_number, p.account_number AS d_account,
           p.kind AS d_kind, p.c, p.c_after, p.c_number, p.c_account, p.c_kind, coalesce(m.r->>'currency', p.c_currency) AS currency
      FROM pairs p JOIN m ON m.n = p.n
     WHERE p.side = 0
     ORDER BY m.n
  )
  SELECT (SELECT bool_or(m.bad_amount OR (m.type = 'TRANSFER' AND m.debit = m.credit)) FROM m)
           OR (SELECT bool_or(run.refused) FROM run) OR (SELECT count(*) FROM plan) <> n_items
           OR EXISTS (SELECT 1 FROM m WHERE m.k IS NOT NULL AND jsonb_build_array(m.k->>0, m.k->>1) = ANY(taken)),
         (SELECT greatest(now(), max(run.last_entry_at))::timestamptz(3) FROM run),
         (SELECT array_agg(run.account) FROM run WHERE run.last),
         (SELECT jsonb_object_agg(run.account, jsonb_build_array(run.after, run.number)) FROM run WHERE run.last),
         (SELECT jsonb_object_agg(run.account, jsonb_build_array(run.balance, run.last_entry_number, run.status, run.can_overdraft))
            FROM run WHERE run.last AND run.kind <> 'WALLET'),
         array_agg(plan.n), array_agg(time_ordered_uuid()), array_agg('TXN' || lpad(floor(random() * 1e12)::bigint::text, 12, '0')),
         array_agg(plan.type), array_agg(plan.amount), array_agg(plan.currency),
         array_agg(plan.r->>'external_reference'), array_agg(plan.r->>'notes'), array_agg((plan.r->>'original_transaction_id')::uuid),
         array_agg(plan.d), array_agg(plan.c), array_agg(plan.d_after), array_agg(plan.c_after),
         array_agg(plan.d_number), array_agg(plan.c_number),
         array_agg(plan.d_account), array_agg(plan.d_kind), array_agg(plan.c_account), array_agg(plan.c_kind),
         array_agg(plan.k->>0), array_agg(plan.k->>1), array_agg(plan.k->>2), array_agg((plan.k->>3)::int)
    INTO refused, at, l_ids, lasts, own_seen,
         ns, tids, refs, types, amounts, currencies, externals, notes, originals, ds, cs, d_afters, c_afters, d_numbers, c_numbers,
         d_accounts, d_kinds, c_accounts, c_kinds, k_scopes, k_keys, k_hashes, k_ttls
    FROM plan;
  IF refused IS NOT FALSE THEN
    RETURN NULL;
  END IF;

  -- 3. The keys' rows, through the kernel: each movement's outcome kept as ledger_keyed_close keeps it.
  PERFORM idempotency_finish_set(p_business, k_scopes, k_keys, k_hashes, k_ttls,
                                 (SELECT array_agg(jsonb_build_object('transaction_id', u.id) ORDER BY u.n)
                                    FROM unnest(tids) WITH ORDINALITY u(id, n)));
  -- 4. The business's own accounts, locked last (the hot rows, which every batch of the business
  -- waits for): their balances and numbers after follow from the locked rows, shifted by what
  -- committed to them since the plan read them, and the batch's time from their last entries.
  IF own_seen IS NOT NULL THEN
    SELECT array_agg(k::uuid) INTO own_ids FROM jsonb_object_keys(own_seen) k;
    PERFORM 1 FROM accounts WHERE business_id = p_business AND id = ANY(own_ids) ORDER BY id FOR NO KEY UPDATE;
    SELECT jsonb_object_agg(l.id, jsonb_build_array(l.balance - (own_seen->(l.id::text)->>0)::numeric,
                                                    l.last_entry_number - (own_seen->(l.id::text)->>1)::bigint)),
           max(l.last_entry_at),
           bool_or(l.status IS DISTINCT FROM own_seen->(l.id::text)->>2
                   OR l.can_overdraft IS DISTINCT FROM (own_seen->(l.id::text)->>3)::boolean),
           bool_or(l.balance <> (own_seen->(l.id::text)->>0)::numeric OR l.last_entry_number <> (own_seen->(l.id::text)->>1)::bigint)
      INTO shift, own_last, refused, moved
      FROM accounts l WHERE l.business_id = p_business AND l.id = ANY(own_ids);
    IF refused THEN
      RAISE EXCEPTION 'ledger_move_set: an account of the business changed state during the batch; the batch is posted again'
        USING ERRCODE = 'serialization_failure';
    END IF;
    IF moved THEN
      -- Each own side's balance and number after, shifted; its rules again, on those balances.
      SELECT array_agg(x.d_after ORDER BY x.o), array_agg(x.c_after ORDER BY x.o),
             array_agg(x.d_number ORDER BY x.o), array_agg(x.c_number ORDER BY x.o),
             bool_or((x.d_kind <> 'WALLET' AND ledger_side_refusal(x.d_kind, own_seen->(x.d::text)->>2, (own_seen->(x.d::text)->>3)::boolean, x.d_after, true) IS NOT NULL)
                  OR (x.c_kind <> 'WALLET' AND ledger_side_refusal(x.c_kind, own_seen->(x.c::text)->>2, (own_seen->(x.c::text)->>3)::boolean, x.c_after, false) IS NOT NULL))
        INTO d_afters, c_afters, d_numbers, c_numbers, refused
        FROM (SELECT u.o, u.d, u.c, u.d_kind, u.c_kind,
                     u.d_after + coalesce((shift->(u.d::text)->>0)::numeric, 0) AS d_after, u.c_after + coalesce((shift->(u.c::text)->>0)::numeric, 0) AS c_after,
                     u.d_number + coalesce((shift->(u.d::text)->>1)::bigint, 0) AS d_number, u.c_number + coalesce((shift->(u.c::text)->>1)::bigint, 0) AS c_number
                FROM unnest(ds, d_afters, d_numbers, d_kinds, cs, c_afters, c_numbers, c_kinds) WITH ORDINALITY
                       u(d, d_after, d_number, d_kind, c, c_after, c_number, c_kind, o)) x;
      IF refused THEN
        RAISE EXCEPTION 'ledger_move_set: a movement is refused on the balances now; the batch is posted again'
          USING ERRCODE = 'serialization_failure';
      END IF;
      lasts := (SELECT jsonb_object_agg(x.key, CASE WHEN shift ? x.key
                          THEN jsonb_build_array((x.value->>0)::numeric + (shift->x.key->>0)::numeric, (x.value->>1)::bigint + (shift->x.key->>1)::bigint)
                          ELSE x.value END) FROM jsonb_each(lasts) x);
    END IF;
    at := greatest(at, own_last);
  END IF;
  -- 5. The transactions.
  INSERT INTO transactions (id, reference, business_id, type, status, amount, currency,
                            debit_account_id, credit_account_id, external_reference, notes, original_transaction_id, created_at)
  SELECT u.id, u.reference, p_business, u.type, 'SUCCESS', u.amount, u.currency, u.d, u.c, u.external, u.notes, u.original, at
    FROM unnest(tids, refs, types, amounts, currencies, ds, cs, externals, notes, originals)
           u(id, reference, type, amount, currency, d, c, external, notes, original)
  ON CONFLICT (reference, business_id) DO NOTHING;
  GET DIAGNOSTICS added = ROW_COUNT;
  IF added < n_items THEN
    RAISE EXCEPTION 'ledger_move_set: a reference drawn is taken; the batch is posted movement by movement' USING ERRCODE = 'unique_violation';
  END IF;
  -- 6. The entries.
  INSERT INTO ledger_entries (business_id, transaction_id, account_id, entry_number, amount, balance_after, created_at)
  SELECT p_business, u.id, u.d, u.number, -u.amount, u.after, at FROM unnest(tids, ds, d_numbers, amounts, d_afters) u(id, d, number, amount, after)
  UNION ALL
  SELECT p_business, u.id, u.c, u.number, u.amount, u.after, at FROM unnest(tids, cs, c_numbers, amounts, c_afters) u(id, c, number, amount, after);
  -- 7. The balances and last entries.
  UPDATE accounts SET balance = (lasts->(id::text)->>0)::numeric, last_entry_number = (lasts->(id::text)->>1)::bigint,
                      last_entry_at = at, updated_at = changed
   WHERE business_id = p_business AND id = ANY(l_ids);
  -- 8. The postings, in item order.
  SELECT json_agg(CASE WHEN u.scope IS NULL THEN j.posting ELSE json_build_object('posting', j.posting) END ORDER BY u.n)
    INTO results
    FROM unnest(ns, tids, refs, types, amounts, currencies, externals, notes, originals, ds, cs, d_afters, c_afters,
                d_accounts, d_kinds, c_accounts, c_kinds, k_scopes)
           u(n, id, reference, type, amount, currency, external, notes, original, d, c, d_after, c_after, d_account, d_kind, c_account, c_kind, scope)
    CROSS JOIN LATERAL (SELECT ledger_posting_object(u.id, u.reference, p_business, u.type, 'SUCCESS', u.amount, u.currency,
                                                     u.d, u.c, u.external, u.notes, u.original, NULL, 0.00, at,
                                                     u.d_account, u.d_kind, u.c_account, u.c_kind, u.d_after, u.c_after) AS posting) j;
  RETURN results;
END $$;
