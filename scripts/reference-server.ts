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
import { FUND, TRANSFER } from './bench/referenceSql.js';

pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v: string) => v);

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
