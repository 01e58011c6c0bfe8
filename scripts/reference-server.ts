/**
 * The bare reference of `npm run bench`: a measuring instrument, not part of the
 * service. A minimal Koa + pg server over the service's own schema that moves
 * money the way the service must (row locks in id order, the balance rule, a
 * ledger transaction with its two entries and both balance updates, one
 * commit) in ONE SQL statement, with no authentication, no request validation,
 * no idempotency and no response shaping.
 *
 *   POST /transfers  {source_wallet_id, destination_wallet_id, amount}  wallet → wallet
 *   POST /funds      {business_id, wallet_id, amount}                   operational account → wallet
 *   GET  /accounts/:id                                                  one account row
 *
 * Answers 201 with {id, reference}, 422 when the debit would overdraw a
 * protected balance or a wallet is not ACTIVE, 404 for an unknown account.
 * Environment: DATABASE_URL, PORT, DB_POOL_SIZE (the service's pool size, so
 * that both hold the same number of connections).
 */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import pg from 'pg';

pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v: string) => v);

/**
 * One statement: lock both accounts in id order, check them, update both
 * balances (and last entry times, as the schema keeps them), insert the transaction and its two entries. `debit` is the SQL
 * expression of the debited account id; $2 is the credited account, $3 the
 * amount, $4 the transaction type.
 */
function movementSql(debit: string): string {
  return `
    WITH sides AS (
      SELECT ${debit} AS debit_id, $2::uuid AS credit_id, $3::numeric AS amount
    ), locked AS (
      SELECT a.id, a.business_id, a.kind, a.balance, a.can_overdraft, a.status, a.currency
      FROM accounts a, sides s WHERE a.id IN (s.debit_id, s.credit_id)
      ORDER BY a.id FOR UPDATE OF a
    ), checked AS (
      SELECT s.debit_id, s.credit_id, s.amount, min(l.business_id::text)::uuid AS business_id, min(l.currency) AS currency,
             count(*) = 2
             AND bool_and(l.kind <> 'WALLET' OR l.status = 'ACTIVE')
             AND bool_and(l.id <> s.debit_id OR l.balance >= s.amount OR l.can_overdraft OR l.kind = 'SETTLEMENT') AS ok
      FROM locked l, sides s GROUP BY s.debit_id, s.credit_id, s.amount
    ), moved AS (
      UPDATE accounts a
      SET balance = a.balance + CASE WHEN a.id = c.debit_id THEN -c.amount ELSE c.amount END,
          last_entry_at = CURRENT_TIMESTAMP(3), last_entry_number = a.last_entry_number + 1, updated_at = now()
      FROM checked c WHERE c.ok AND a.id IN (c.debit_id, c.credit_id)
      RETURNING a.id, a.balance, a.last_entry_number, c.debit_id, c.amount
    ), tx AS (
      INSERT INTO transactions (id, reference, business_id, type, status, amount, currency, debit_account_id, credit_account_id)
      SELECT gen_random_uuid(), 'TXN' || lpad(floor(random() * 1e12)::bigint::text, 12, '0'),
             c.business_id, $4, 'SUCCESS', c.amount, c.currency, c.debit_id, c.credit_id
      FROM checked c WHERE c.ok
      RETURNING id, reference
    ), entries AS (
      INSERT INTO ledger_entries (business_id, transaction_id, account_id, entry_number, amount, balance_after)
      SELECT c.business_id, tx.id, m.id, m.last_entry_number, CASE WHEN m.id = m.debit_id THEN -m.amount ELSE m.amount END, m.balance
      FROM tx, moved m, checked c
    )
    SELECT c.ok, tx.id, tx.reference FROM checked c LEFT JOIN tx ON true`;
}

const TRANSFER = movementSql('$1::uuid');
const FUND = movementSql(`(SELECT id FROM accounts WHERE business_id = $1::uuid AND kind = 'OPERATIONAL')`);
const ACCOUNT = `SELECT id, business_id, kind, account_number, currency, balance, can_overdraft, status, name, label_id,
                        external_reference, created_at, updated_at FROM accounts WHERE id = $1`;

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });

type Body = Record<string, string>;
const body = (ctx: Koa.Context) => ctx.request.body as Body;

async function move(ctx: Koa.Context, sql: string, debit: string, credit: string, type: string): Promise<void> {
  const { rows } = await pool.query({ name: type, text: sql, values: [debit, credit, body(ctx).amount, type] });
  if (!rows.length) {
    ctx.status = 404;
    ctx.body = { code: 'NOT_FOUND' };
  } else if (!rows[0].ok) {
    ctx.status = 422;
    ctx.body = { code: 'REFUSED' };
  } else {
    ctx.status = 201;
    ctx.body = { id: rows[0].id, reference: rows[0].reference };
  }
}

const router = new Router();
router.post('/transfers', (ctx) => move(ctx, TRANSFER, body(ctx).source_wallet_id, body(ctx).destination_wallet_id, 'TRANSFER'));
router.post('/funds', (ctx) => move(ctx, FUND, body(ctx).business_id, body(ctx).wallet_id, 'FUND'));
router.get('/accounts/:id', async (ctx) => {
  const { rows } = await pool.query({ name: 'account', text: ACCOUNT, values: [ctx.params.id] });
  ctx.status = rows.length ? 200 : 404;
  ctx.body = rows[0] ?? { code: 'NOT_FOUND' };
});
router.get('/health', (ctx) => {
  ctx.body = { status: 'ok' };
});

const app = new Koa();
app.use(bodyParser());
app.use(router.routes());
const server = app.listen(Number(process.env.PORT ?? 3100), '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
    void pool.end().then(() => process.exit(0));
  });
}
