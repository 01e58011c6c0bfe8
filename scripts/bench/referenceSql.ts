/**
 * The bare reference's movements (scripts/reference-server.ts), one SQL statement each, also
 * run in SQL on one connection by the bench (statements.ts, `sqlReferenceTransfers`): the
 * database's own cost of the simplest correct movement, the unit the ledger's time per
 * posting is held against.
 */

/**
 * One statement: lock both accounts in id order, check them, update both
 * balances (and last entry times, as the schema keeps them), insert the transaction and its two entries.
 * The movement's time is the later of the transaction's start and both accounts' last entry
 * times, as the ledger stamps it (src/ledger/sql/ledger_post.sql): its transfers share wallets
 * with the service's, and each account's entries must follow each other in time and number
 * for the ledger check after the run (a transaction that started earlier may lock after a
 * later one). `debit` is the SQL
 * expression of the debited account id; $2 is the credited account, $3 the
 * amount, $4 the transaction type.
 */
function movementSql(debit: string): string {
  return `
    WITH sides AS (
      SELECT ${debit} AS debit_id, $2::uuid AS credit_id, $3::numeric AS amount
    ), locked AS (
      SELECT a.id, a.business_id, a.kind, a.balance, a.can_overdraft, a.status, a.currency, a.last_entry_at
      FROM accounts a, sides s WHERE a.id IN (s.debit_id, s.credit_id)
      ORDER BY a.id FOR UPDATE OF a
    ), checked AS (
      SELECT s.debit_id, s.credit_id, s.amount, min(l.business_id::text)::uuid AS business_id, min(l.currency) AS currency,
             greatest(CURRENT_TIMESTAMP(3), max(l.last_entry_at)) AS at,
             count(*) = 2
             AND bool_and(l.kind <> 'WALLET' OR l.status = 'ACTIVE')
             AND bool_and(l.id <> s.debit_id OR l.balance >= s.amount OR l.can_overdraft OR l.kind = 'SETTLEMENT') AS ok
      FROM locked l, sides s GROUP BY s.debit_id, s.credit_id, s.amount
    ), moved AS (
      UPDATE accounts a
      SET balance = a.balance + CASE WHEN a.id = c.debit_id THEN -c.amount ELSE c.amount END,
          last_entry_at = c.at, last_entry_number = a.last_entry_number + 1, updated_at = now()
      FROM checked c WHERE c.ok AND a.id IN (c.debit_id, c.credit_id)
      RETURNING a.id, a.balance, a.last_entry_number, c.debit_id, c.amount
    ), tx AS (
      INSERT INTO transactions (id, reference, business_id, type, status, amount, currency, debit_account_id, credit_account_id, created_at)
      SELECT gen_random_uuid(), 'TXN' || lpad(floor(random() * 1e12)::bigint::text, 12, '0'),
             c.business_id, $4, 'SUCCESS', c.amount, c.currency, c.debit_id, c.credit_id, c.at
      FROM checked c WHERE c.ok
      RETURNING id, reference
    ), entries AS (
      INSERT INTO ledger_entries (business_id, transaction_id, account_id, entry_number, amount, balance_after, created_at)
      SELECT c.business_id, tx.id, m.id, m.last_entry_number, CASE WHEN m.id = m.debit_id THEN -m.amount ELSE m.amount END, m.balance, c.at
      FROM tx, moved m, checked c
    )
    SELECT c.ok, tx.id, tx.reference FROM checked c LEFT JOIN tx ON true`;
}

/** A transfer: $1 the debited wallet, $2 the credited one, $3 the amount, $4 'TRANSFER'. */
export const TRANSFER = movementSql('$1::uuid');
/** A fund: $1 the business (its operational account is debited), $2 the wallet, $3 the amount, $4 'FUND'. */
export const FUND = movementSql(`(SELECT id FROM accounts WHERE business_id = $1::uuid AND kind = 'OPERATIONAL')`);
