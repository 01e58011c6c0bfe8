/**
 * Every committed transaction writes one business's rows only: distributed by business
 * (docs/scale-out.md), each money movement, payout, card purchase and webhook delivery
 * then stays on one node. The test installs, for its own run, a row trigger on every
 * tenant table (test/platform/database/distribution.test.ts names the others) that keeps the
 * first business a transaction wrote (a transaction-local setting) and records any row
 * of another business in the same transaction; the record is written in that
 * transaction, so only committed transactions are counted. Then it runs a mixed load
 * (the money property's random operations over several businesses at once, single and
 * bulk payouts through the rail to completion, a card purchase, webhook deliveries)
 * and expects no record. Everything it installs is dropped afterwards. During the load it
 * also notes every statement the process sends and expects each that reads or writes a
 * tenant table to name `business_id` (distributed by business, one that does not asks
 * every shard), but for the lookups by id alone docs/scale-out.md names.
 *
 * The work that spans businesses writes no tenant table: the job queue (pg-boss, its
 * own schema, its maintenance included), rate limits (`rate_limits`), the migrator and
 * the SQL applier; the outbox relay reads the pending events of every business but
 * dispatches one business's per transaction (src/webhooks/dispatcher.ts). The platform's
 * own requests (creating a business) write a reference table, `businesses`, and keep
 * their Idempotency-Key under the nil business (src/kernel/sql/idempotency_finish.sql):
 * the recorder leaves those keys out.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { get, post } from '../../support/client.js';
import { activeCustomer } from '../../support/customers.js';
import { credit, newBusiness, topup } from '../../support/fixtures.js';
import { issuedCard } from '../../support/cards.js';
import { bulkPayoutSettled, createPayout, payoutBusiness, payoutReaching, sendBulkPayout } from '../../support/payouts.js';
import { runProperty } from '../../support/property/run.js';
import { Instances } from '../../support/property/transport.js';
import { running } from '../../support/service.js';
import { startReceiver, testSecret, type Receiver } from '../../support/webhooks.js';
import { COORDINATOR_TABLES, DIRECTORY_TABLES, REFERENCE_TABLES } from '../../support/distribution.js';
import { eventually as pollUntil } from '../../support/assertions.js';
import type { JobQueue } from '../../../src/jobs/queue.js';
import { AttemptRecorder } from '../../../src/webhooks/attemptRecorder.js';
import { DeliveryReader, type DeliveryRow } from '../../../src/webhooks/deliveryReader.js';

const db = () => running().db;

/** The recorder: the first business of the transaction, then any other one's row. */
const RECORDER = `
  CREATE TABLE test_mixed_business_writes (
    txid bigint NOT NULL, first text NOT NULL, business_id uuid, table_name text NOT NULL, op text NOT NULL
  );
  CREATE FUNCTION test_one_business() RETURNS trigger LANGUAGE plpgsql AS $body$
  DECLARE
    b uuid;
    first text := coalesce(current_setting('test.first_business', true), '');
  BEGIN
    IF TG_OP = 'DELETE' THEN b := OLD.business_id; ELSE b := NEW.business_id; END IF;
    IF b = '00000000-0000-0000-0000-000000000000' THEN
      RETURN NULL; -- the platform's own idempotency keys: the platform's work, not a business's
    END IF;
    IF first = '' THEN
      PERFORM set_config('test.first_business', b::text || ' ' || TG_TABLE_NAME, true);
    ELSIF split_part(first, ' ', 1) IS DISTINCT FROM b::text THEN
      INSERT INTO test_mixed_business_writes VALUES (txid_current(), first, b, TG_TABLE_NAME, TG_OP);
    END IF;
    RETURN NULL;
  END $body$;
`;

/** The tenant tables of the migrated database. */
async function tenantTables(): Promise<string[]> {
  const global = new Set([...Object.keys(REFERENCE_TABLES), ...Object.keys(COORDINATOR_TABLES), ...Object.keys(DIRECTORY_TABLES)]);
  const { rows } = await db().raw(`SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'`);
  return (rows as { name: string }[]).map((r) => r.name).filter((t) => !global.has(t) && !t.startsWith('test_'));
}

/**
 * The statements sent to the database (by every pool of this process: the service's, its
 * background lane's, the job queue's) from `start()` until `stop()`, each as its text.
 * PL/pgSQL inside the functions is not seen: the functions take the business first.
 */
function statementLog(): { start(): void; stop(): string[] } {
  const seen: string[] = [];
  const original = pg.Client.prototype.query;
  return {
    start() {
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
        if (text) seen.push(text);
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof original;
    },
    stop() {
      pg.Client.prototype.query = original;
      return seen;
    },
  };
}

/**
 * The statements of `statements` that read or write a tenant table of `tables` without
 * naming `business_id`: distributed by business, each would ask every shard.
 */
function withoutBusiness(statements: string[], tables: string[]): string[] {
  const tenant = new RegExp(`\\b(${tables.join('|')})\\b`, 'i');
  return [...new Set(statements.filter((sql) => tenant.test(sql) && !/business_id|p_business/i.test(sql)))];
}

/**
 * Statements (their beginning) known to look a tenant row up by id alone, each named in
 * docs/scale-out.md with its cost: the batched wallet read (src/businesses/wallets.ts),
 * which checks the business after the read.
 */
const KNOWN_LOOKUPS_BY_ID = ['SELECT * FROM accounts WHERE id = '];

/** Polls until `check` passes, or throws its last failure after 15_000 ms. */
const eventually = (check: () => Promise<void>, ms = 15_000) => pollUntil(check, ms);

describe('single-business transactions: every committed transaction writes one business’s rows', function () {
  this.timeout(300_000);
  let tables: string[] = [];
  let receiver: Receiver | undefined;

  before(async () => {
    tables = await tenantTables();
    await db().raw(RECORDER);
    for (const t of tables) {
      await db().raw(`CREATE TRIGGER test_one_business AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION test_one_business()`);
    }
  });

  after(async () => {
    await receiver?.close();
    for (const t of tables) await db().raw(`DROP TRIGGER IF EXISTS test_one_business ON ${t}`);
    await db().raw('DROP FUNCTION IF EXISTS test_one_business() CASCADE; DROP TABLE IF EXISTS test_mixed_business_writes');
  });

  it('the recorder sees a transaction that writes two businesses (so that the test can fail)', async () => {
    const [one, two] = [await newBusiness(), await newBusiness()];
    await db().transaction(async (trx) => {
      for (const b of [one, two]) {
        await trx('labels').insert({ id: randomUUID(), business_id: b.id, name: `mixed-${randomUUID().slice(0, 8)}` });
      }
    });
    const rows = await db()('test_mixed_business_writes').where({ business_id: two.id });
    expect(rows.map((r) => [r.table_name, r.op])).to.deep.equal([['labels', 'INSERT']]);
    await db()('test_mixed_business_writes').delete();
  });

  it('finds none under a mixed load: random money operations, payouts single and bulk, a card purchase, webhook deliveries; every statement on a tenant table names the business', async () => {
    // Webhooks: a business with an endpoint subscribed to its top-ups, delivered while the rest runs.
    const hooked = await newBusiness();
    receiver = await startReceiver();
    const registered = await post('/cl/v1/webhooks/endpoints', { url: receiver.url, secret: testSecret(), events: ['topup.complete'] }, { token: hooked.token });
    expect(registered.status, JSON.stringify(registered.body)).to.equal(200);

    // A card purchase.
    const carded = await newBusiness();
    const holder = await activeCustomer(carded);
    const { card } = await issuedCard(carded, {}, holder);
    await topup(carded.token, '100.00');
    await credit(carded.token, holder.wallet_id, '50.00');

    // Payouts: one alone and a bulk of three, to their outcome through the rail.
    const paying = await payoutBusiness('500.00');
    const payoutsDone = (async () => {
      const single = await createPayout(paying.b, { payout_amount: '10.00', customer_id: paying.customer.id });
      const bulk = await sendBulkPayout(paying.b, [1, 2, 3].map((n) => ({ payout_amount: `${n}.00`, customer_id: paying.customer.id })));
      expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
      await payoutReaching(paying.b, single.payout_id, 'COMPLETED', 30_000).catch(() => undefined);
      await bulkPayoutSettled(paying.b, bulk.body.bulk_payout_id, 30_000);
    })();

    const statements = statementLog();
    statements.start();
    const property = runProperty(new Instances([running().url]), {
      seed: 39,
      operations: 600,
      concurrency: 12,
      businesses: 3,
      walletsPerBusiness: 4,
      overdraftWallets: 1,
      deadlineMs: 180_000,
    });
    const purchase = await post('/testhelpers/cards/authorizations', { card_id: card.id, amount: '5.00', merchant_name: 'Corner Coffee' }, { token: carded.token });
    expect(purchase.body.status, JSON.stringify(purchase.body)).to.equal('APPROVED');
    for (let i = 0; i < 5; i++) await topup(hooked.token, '1.00');
    const [log] = await Promise.all([property, payoutsDone]);
    expect(log.moneyOps).to.be.greaterThan(300);
    await eventually(async () => {
      const state = {
        pending: (await db()('outbox_pending').where({ business_id: hooked.id }).count<{ n: string }[]>({ n: '*' }))[0].n,
        events: (await db()('outbox_events').where({ business_id: hooked.id }).select('code')).map((e) => e.code),
        deliveries: await db()('webhook_deliveries').where({ business_id: hooked.id }).select('status', 'attempt_count', 'last_error'),
      };
      expect(receiver!.received.length, JSON.stringify(state)).to.be.at.least(5);
    }, 60_000);
    await eventually(async () => {
      const attempts = await db()('webhook_delivery_attempts').where({ business_id: hooked.id, outcome: 'SUCCEEDED' }).count<{ n: string }[]>({ n: '*' });
      expect(Number(attempts[0].n), 'delivery attempts recorded').to.be.at.least(5);
    });
    expect((await get(`/cl/v1/wallets/${holder.wallet_id}/balance`, { token: carded.token })).status).to.equal(200);

    const unnamed = withoutBusiness(statements.stop(), tables).filter((sql) => !KNOWN_LOOKUPS_BY_ID.some((known) => sql.startsWith(known)));
    expect(unnamed, 'statements on tenant tables that do not name the business').to.deep.equal([]);
    const mixed = await db()('test_mixed_business_writes').select('txid', 'first', 'business_id', 'table_name', 'op').limit(20);
    expect(mixed, 'transactions that wrote rows of more than one business').to.deep.equal([]);
  });
  it('records the webhook attempts of two businesses that end together in a transaction each', async () => {
    // Two businesses whose deliveries wait for their second attempt, an hour away (the
    // receiver's Retry-After), so that the attempts below are the only ones recorded.
    const failing = await startReceiver(() => ({ status: 503, headers: { 'retry-after': '3600' } }));
    try {
      const pending: DeliveryRow[] = [];
      for (const b of [await newBusiness(), await newBusiness()]) {
        const made = await post('/cl/v1/webhooks/endpoints', { url: failing.url, secret: testSecret(), events: ['topup.complete'] }, { token: b.token });
        expect(made.status, JSON.stringify(made.body)).to.equal(200);
        await topup(b.token, '1.00');
        await eventually(async () => {
          const row = await db()('webhook_deliveries').where({ business_id: b.id, status: 'PENDING', attempt_count: 1 }).first();
          expect(row, 'a delivery failed once').to.not.equal(undefined);
        }, 30_000);
        const { id } = await db()('webhook_deliveries').where({ business_id: b.id }).first();
        pending.push((await new DeliveryReader(db()).read([id], b.id)).get(id)!);
      }
      // No job is due after a success: the queue is not reached (sendEach with nothing).
      const recorder = new AttemptRecorder({ db: db(), jobs: { sendEach: async () => undefined } as unknown as JobQueue, disableFailingAfterMs: 3_600_000 });
      const result = { statusCode: 200, retryAfter: null, latencyMs: 3, responseBody: 'ok', responseHeaders: {}, error: null, interrupted: false };
      // Both in one call: without a transaction per business they would commit together.
      await recorder.add(
        pending.map((row) => ({ job: { delivery_id: row.id, attempt: 2 }, row, result, startedAt: new Date(), next: null, outcome: 'SUCCEEDED' as const, sent: null })),
        [],
      );
      const moved = await db()('webhook_deliveries').whereIn('id', pending.map((r) => r.id)).select('status');
      expect(moved.map((r) => r.status), 'both attempts recorded').to.deep.equal(['SUCCEEDED', 'SUCCEEDED']);
      const mixed = await db()('test_mixed_business_writes').select('table_name', 'op');
      expect(mixed, 'transactions that wrote rows of more than one business').to.deep.equal([]);
    } finally {
      await failing.close();
    }
  });
});
