-- Who a payout request pays. A request names its receiver by exactly one of
-- `customer_id`, `walletAccountNumber` and `mobileNumber`; payout_receiver_count
-- says how many it gives (payout_create refuses anything but one), and
-- payout_receiver finds the customer of business p_business it names: the
-- ACTIVE one first (a mobile number may have belonged to earlier customers),
-- then the newest; NULL when there is none. createPayout, each bulk payout item
-- and the whitelist's additions find receivers through these two.
CREATE OR REPLACE FUNCTION payout_receiver_count(r jsonb) RETURNS int LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_exists(r, 'customer_id')::int + jsonb_exists(r, 'walletAccountNumber')::int + jsonb_exists(r, 'mobileNumber')::int
$$;

CREATE OR REPLACE FUNCTION payout_receiver(p_business uuid, r jsonb) RETURNS customers LANGUAGE sql STABLE AS $$
  SELECT c.* FROM customers c LEFT JOIN accounts a ON a.id = c.wallet_id
   WHERE c.business_id = p_business
     AND CASE WHEN jsonb_exists(r, 'customer_id') THEN c.id = ledger_uuid(r->>'customer_id')
              WHEN jsonb_exists(r, 'walletAccountNumber') THEN a.account_number = r->>'walletAccountNumber'
              ELSE c.mobile_number = r->>'mobileNumber' END
   ORDER BY c.status = 'ACTIVE' DESC, c.created_at DESC LIMIT 1
$$;
