-- The customers' face in SQL: a customer of business p_business named by exactly one
-- identifier of r, `customer_id`, `walletAccountNumber` (the number of the customer's
-- wallet) or `mobileNumber` (the seed's payout receiver and whitelist entry shapes);
-- customer_identifier_count says how many r gives (a caller refuses anything but one).
-- By wallet number or mobile number, the ACTIVE customer comes first (a mobile number
-- may have belonged to earlier customers), then the newest; NULL when there is none.
-- Payouts (createPayout, each bulk payout item, the whitelist's additions) find their
-- receivers through it.
CREATE OR REPLACE FUNCTION customer_identifier_count(r jsonb) RETURNS int LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_exists(r, 'customer_id')::int + jsonb_exists(r, 'walletAccountNumber')::int + jsonb_exists(r, 'mobileNumber')::int
$$;

-- One lookup per kind of identifier, each served by its own index (customers' primary
-- key, accounts' account number, customers' (business_id, mobile_number)): a single
-- statement choosing its condition per row would read every customer of the business. By
-- wallet number, the wallet is read first and then its customers, each statement on one
-- table (docs/scale-out.md, "Statements a worker plans once").
CREATE OR REPLACE FUNCTION customer_by_identifier(p_business uuid, r jsonb) RETURNS customers LANGUAGE plpgsql STABLE
  SET enable_seqscan = off
AS $$
DECLARE
  c customers;
  wallet uuid;
BEGIN
  IF jsonb_exists(r, 'customer_id') THEN
    SELECT * INTO c FROM customers WHERE id = request_uuid(r->>'customer_id') AND business_id = p_business;
  ELSIF jsonb_exists(r, 'walletAccountNumber') THEN
    SELECT id INTO wallet FROM accounts WHERE account_number = r->>'walletAccountNumber' AND business_id = p_business;
    SELECT * INTO c FROM customers WHERE wallet_id = wallet AND business_id = p_business
     ORDER BY status = 'ACTIVE' DESC, created_at DESC LIMIT 1;
  ELSE
    SELECT * INTO c FROM customers WHERE business_id = p_business AND mobile_number = r->>'mobileNumber'
     ORDER BY status = 'ACTIVE' DESC, created_at DESC LIMIT 1;
  END IF;
  RETURN c;
END $$;
