-- Batched posting: many movements of business p_business in one statement, one
-- database transaction and one round trip (src/ledger/batching.ts gathers them).
-- p_items is a JSON array of {type, request, key}: type and request as ledger_move
-- takes them; key is null, or ledger_move_keyed's key arguments as a JSON array
-- [scope, key, hash, ttl_seconds, stale_seconds, context].
--
-- The items are processed in order, each exactly as its own call of ledger_move
-- (no key) or ledger_move_keyed would process it: its own ledger transaction and
-- entries with their balances after, its own Idempotency-Key record, its own
-- refusal. A refusal is decided before its movement's first write (ledger_post), so
-- it changes nothing of its own and nothing of the other items; a key held by a
-- request of another session answers {held} for that item alone; a key sent twice
-- in one batch is a replay for the second item (the first one's record is already
-- there and its locks are this session's). Returns the JSON array of the items'
-- results, in their order (json: see ledger_posting_object).
--
-- Two paths give these answers. The common batch, every movement posted under a new key
-- or none, is posted set-wise by a fixed number of statements (ledger_move_set); any
-- other (a refusal, a key already used or held, a key twice) is posted item by item as
-- above, the set-wise path having written nothing.
--
-- Lock order, ledger_post's: the wallets first, then the business's own accounts, each
-- ascending id, FOR NO KEY UPDATE. Before the first item the wallets the items name
-- (wallet_id, source_wallet_id, destination_wallet_id) are locked; the business's own
-- accounts (the hot rows: every item but a transfer changes one) are locked after the plan,
-- by ledger_move_set, or, on the movement-by-movement path, by ledger_hold_balances, which
-- holds their balances for the call (written back by ledger_release_balances), so a hot row
-- is also written once per batch there. Batches then queue behind each other and behind
-- single movements in one order, whatever the order of their items, and a hot account is
-- locked once per batch; ledger_post's own locks find the rows already held. Only movements
-- whose accounts are known from the request can be batched: ledger_batched_movements, the
-- one list (src/ledger/batching.ts reads it); any other type raises, since its locks (a
-- refund's original transaction first) would not keep that order.
CREATE OR REPLACE FUNCTION ledger_batched_movements() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL', 'CARD_PURCHASE']
$$;

CREATE OR REPLACE FUNCTION ledger_move_batch(p_business uuid, p_items jsonb) RETURNS json LANGUAGE plpgsql
  SET enable_seqscan = off
AS $$
DECLARE
  ids uuid[];
  own uuid[];
  item jsonb;
  k jsonb;
  results jsonb[] := '{}';
  posted json;
BEGIN
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_items) i WHERE NOT i->>'type' = ANY(ledger_batched_movements())) THEN
    RAISE EXCEPTION 'ledger_move_batch: only % are batched', array_to_string(ledger_batched_movements(), ', ');
  END IF;
  -- The business's own accounts, when an item is not a transfer (the hot rows).
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_items) i WHERE i->>'type' <> 'TRANSFER') THEN
    SELECT array_agg(id) INTO own FROM accounts WHERE business_id = p_business AND kind <> 'WALLET';
  END IF;
  -- The ids first, then one index scan of the primary key: a join of accounts with the
  -- items would be planned as a scan of the table. Only the wallets are locked here: an id
  -- a request names that is not a wallet is refused, and is not locked out of order.
  SELECT array_agg(DISTINCT x.id) INTO ids
    FROM (SELECT request_uuid(i->'request'->>f.name) AS id
            FROM jsonb_array_elements(p_items) i,
                 unnest(ARRAY['wallet_id', 'source_wallet_id', 'destination_wallet_id']) f(name)
          UNION ALL
          SELECT unnest(own)) x
   WHERE x.id IS NOT NULL;
  PERFORM 1 FROM accounts WHERE business_id = p_business AND id = ANY(ids) AND kind = 'WALLET' ORDER BY id FOR NO KEY UPDATE;
  -- The common case, every movement posted and every key new: a fixed number of statements.
  posted := ledger_move_set(p_business, p_items, ids);
  IF posted IS NOT NULL THEN
    RETURN posted;
  END IF;
  IF own IS NOT NULL THEN
    PERFORM ledger_hold_balances(p_business, own);
  END IF;
  FOR item IN SELECT value FROM jsonb_array_elements(p_items) LOOP
    k := item->'key';
    IF k IS NULL OR jsonb_typeof(k) = 'null' THEN
      results := array_append(results, ledger_move(p_business, item->>'type', item->'request'));
    ELSE
      results := array_append(results, ledger_move_keyed(p_business, k->>0, k->>1, k->>2, (k->>3)::int, (k->>4)::int, k->5, item->>'type', item->'request'));
    END IF;
  END LOOP;
  PERFORM ledger_release_balances(p_business);
  RETURN to_json(results);
END $$;
