/**
 * The lists' CSV exports (exportPayoutsCsv, exportBulkPayoutsCsv, exportCustomersCsv,
 * exportEventsCsv, exportTransactionsCsv, exportWebhookDeliveryAttemptsCsv): each is its list
 * with the same filters, every page of it in the list's order, under a header line, each cell
 * as the list's JSON has it (a formula defused); 3,000 transactions come whole and in order,
 * streamed; the list's permission and its 400 for a bad filter (or a `limit`, which the export
 * does not take); another business's rows never show.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { eventually, expectProblem } from '../support/assertions.js';
import { newBusiness, tokenFor, topup, uniq, type TestBusiness } from '../support/fixtures.js';
import { createPayout, payoutBusinessHooks, payoutReaching, sendBulkPayout, bulkPayoutSettled } from '../support/payouts.js';
import { receiversOfSuite, testSecret } from '../support/webhooks.js';
import { baseUrl, running } from '../support/service.js';
import { parseCsv } from '../support/csv.js';

/** The CSV answer of `path` as objects keyed by the header line's names; asserts 200 text/csv. */
async function csvOf(path: string, token: string): Promise<{ header: string[]; rows: Record<string, string>[] }> {
  const res = await get(path, { token });
  expect(res.status, typeof res.body === "string" ? res.body : JSON.stringify(res.body)).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
  const [header, ...records] = parseCsv(res.body as string);
  return { header, rows: records.map((r) => Object.fromEntries(header.map((name, i) => [name, r[i]]))) };
}

/** Every item of a JSON list through its cursor. */
async function listOf(path: string, token: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const res: any = await get(`${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    items.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return items;
}

/** What a cell shows of a JSON value (a null empty, an object its JSON). */
const shown = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** Asserts that the export at `csvPath` is the list at `listPath`, row for item, each named field as the list has it. */
async function expectSameAsList(listPath: string, csvPath: string, token: string, idColumn: string, fields: string[]): Promise<Record<string, string>[]> {
  const [items, { header, rows }] = await Promise.all([listOf(listPath, token), csvOf(csvPath, token)]);
  expect(header).to.include.members([idColumn, ...fields]);
  expect(rows.map((r) => r[idColumn])).to.deep.equal(items.map((i) => i[idColumn]));
  rows.forEach((row, n) => {
    for (const f of fields) expect(row[f], `${csvPath} row ${n + 1} ${f}`).to.equal(shown(items[n][f]));
  });
  return rows;
}

describe('CSV exports of the lists', function () {
  this.timeout(180_000);
  const receiver = receiversOfSuite();
  let b: TestBusiness;
  let customer: any;
  let endpointId: string;
  const formula = `=HYPERLINK("http://example.com/x","${uniq()}")`;
  const reference = `export-${randomUUID()}`;

  payoutBusinessHooks((made) => ({ b, customer } = made));

  before(async () => {
    const first = await createPayout(b, { payout_amount: '1.50', external_reference: formula, payout_purpose: '@SUM(A1)', customer_id: customer.id });
    const second = await createPayout(b, { payout_amount: '2.00', external_reference: reference, customer_id: customer.id });
    const url = (await receiver()).url;
    const endpoint = await post('/cl/v1/webhooks/endpoints', { url, secret: testSecret(), events: ['topup.complete'] }, { token: b.token });
    expect(endpoint.status, JSON.stringify(endpoint.body)).to.equal(200);
    endpointId = (await get('/cl/v1/webhooks/endpoints', { token: b.token })).body.data.find((e: { url: string }) => e.url === url).id;
    await topup(b.token, '10.00');
    const bulk = await sendBulkPayout(b, [{ customer_id: customer.id, payout_amount: '1.00' }]);
    expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
    await bulkPayoutSettled(b, bulk.body.bulk_payout_id);
    await payoutReaching(b, first.payout_id, 'COMPLETED');
    await payoutReaching(b, second.payout_id, 'COMPLETED');
    await eventually(async () => {
      expect((await get(`/cl/v1/webhooks/endpoints/${endpointId}/attempts`, { token: b.token })).body.data).to.have.length(1);
    }, 30_000);
  });

  it('exports the payouts as listCustomerPayouts lists them, with its filters, formulas defused', async () => {
    const fields = ['created_at', 'status', 'payout_amount', 'currency', 'customer_id', 'wallet_account_number', 'transaction_id', 'outcome_transaction_id', 'failure_code', 'updated_at'];
    const all = await expectSameAsList('/payouts/', '/payouts.csv', b.token, 'payout_id', fields);
    expect(all.length).to.be.at.least(3);
    const { header } = await csvOf('/payouts.csv', b.token);
    expect(header.join(',')).to.equal(
      'created_at,payout_id,status,payout_amount,currency,payout_purpose,external_reference,customer_id,wallet_account_number,transaction_id,outcome_transaction_id,failure_code,updated_at',
    );
    const defused = all.find((r) => r.external_reference === `'${formula}`);
    expect(defused, 'the formula reference, prefixed').to.not.equal(undefined);
    expect(defused!.payout_purpose).to.equal("'@SUM(A1)");
    expect(defused!.payout_amount).to.equal('1.50');
    const byReference = await expectSameAsList(`/payouts/?external_reference=${reference}`, `/payouts.csv?external_reference=${reference}`, b.token, 'payout_id', fields);
    expect(byReference.map((r) => r.external_reference)).to.deep.equal([reference]);
    expect((await csvOf('/payouts.csv?status=FAILED', b.token)).rows).to.deep.equal([]);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await csvOf(`/payouts.csv?created_from=${encodeURIComponent(later)}`, b.token)).rows).to.deep.equal([]);
  });

  it('exports the bulk payouts with a column per state', async () => {
    const [batch] = await listOf('/bulk-payouts', b.token);
    const { header, rows } = await csvOf('/bulk-payouts.csv', b.token);
    expect(header.join(',')).to.equal('created_at,bulk_payout_id,item_count,pending,processing,completed,failed,rejected');
    expect(rows).to.deep.equal([
      { created_at: batch.created_at, bulk_payout_id: batch.bulk_payout_id, item_count: '1', pending: '0', processing: '0', completed: '1', failed: '0', rejected: '0' },
    ]);
    expect((await csvOf(`/bulk-payouts.csv?created_to=${encodeURIComponent(batch.created_at)}`, b.token)).rows).to.deep.equal([]);
  });

  it('exports the customers', async () => {
    const fields = ['created_at', 'status', 'mobile_number', 'full_name', 'wallet_id', 'wallet_account_number', 'occupation', 'politically_exposed', 'risk_rating', 'updated_at'];
    const rows = await expectSameAsList('/customers', '/customers.csv', b.token, 'id', fields);
    expect(rows.map((r) => r.mobile_number)).to.deep.equal([customer.mobile_number]);
    await expectSameAsList(`/customers?mobile_number=${encodeURIComponent(customer.mobile_number)}`, `/customers.csv?mobile_number=${encodeURIComponent(customer.mobile_number)}`, b.token, 'id', fields);
    expect((await csvOf('/customers.csv?status=INACTIVE', b.token)).rows).to.deep.equal([]);
  });

  it("exports the events, each event's data as its JSON", async () => {
    const rows = await expectSameAsList('/events', '/events.csv', b.token, 'id', ['created_at', 'code', 'data']);
    expect(rows.map((r) => r.code)).to.include.members(['topup.complete', 'payout.completed']);
    const topups = await expectSameAsList('/events?code=topup.complete', '/events.csv?code=topup.complete', b.token, 'id', ['created_at', 'code', 'data']);
    expect(topups).to.have.length(1);
    expect(JSON.parse(topups[0].data)).to.have.property('amount');
  });

  it("exports the transactions of all the business's wallets", async () => {
    const fields = ['created_at', 'reference', 'type', 'status', 'amount', 'currency', 'sender_account_number', 'receiver_account_number', 'refunded_amount'];
    const rows = await expectSameAsList('/cl/v1/transactions', '/cl/v1/transactions.csv', b.token, 'id', fields);
    expect(rows.length).to.be.at.least(4);
    expect(rows.map((r) => r.external_reference)).to.include.members([`'${formula}`, reference]);
    expect(rows.map((r) => r.notes)).to.include("'@SUM(A1)");
    const topups = await expectSameAsList('/cl/v1/transactions?type=TOPUP', '/cl/v1/transactions.csv?type=TOPUP', b.token, 'id', fields);
    expect(topups.map((r) => r.amount)).to.include('10.00');
    await expectSameAsList('/cl/v1/transactions?amount_min=1.75', '/cl/v1/transactions.csv?amount_min=1.75', b.token, 'id', fields);
  });

  it("exports an endpoint's delivery attempts", async () => {
    const fields = ['started_at', 'event_id', 'event_code', 'attempt', 'outcome', 'duration_ms', 'response_status', 'error', 'next_attempt_at', 'response_body'];
    const rows = await expectSameAsList(`/cl/v1/webhooks/endpoints/${endpointId}/attempts`, `/cl/v1/webhooks/endpoints/${endpointId}/attempts.csv`, b.token, 'id', fields);
    expect(rows.map((r) => r.outcome)).to.deep.equal(['SUCCEEDED']);
    expect((await csvOf(`/cl/v1/webhooks/endpoints/${endpointId}/attempts.csv?outcome=FAILED`, b.token)).rows).to.deep.equal([]);
    expectProblem(await get(`/cl/v1/webhooks/endpoints/${randomUUID()}/attempts.csv`, { token: b.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
  });

  it('answers 400 to a bad filter or a limit, and 403 without the list’s permission', async () => {
    const exports = ['/payouts.csv', '/bulk-payouts.csv', '/customers.csv', '/events.csv', '/cl/v1/transactions.csv', `/cl/v1/webhooks/endpoints/${endpointId}/attempts.csv`];
    for (const path of exports) expectProblem(await get(`${path}?limit=10`, { token: b.token }), 400, 'VALIDATION_ERROR');
    expectProblem(await get('/payouts.csv?status=LOST', { token: b.token }), 400, 'VALIDATION_ERROR');
    expectProblem(await get('/cl/v1/transactions.csv?created_from=yesterday', { token: b.token }), 400, 'VALIDATION_ERROR');
    const key = async (permissions: string[]) => {
      const created = await post('/api-keys', { name: `Export ${uniq()}`, permissions }, { token: b.token });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return tokenFor(created.body.client_id, created.body.client_secret);
    };
    const walletsOnly = await key(['wallets:read']);
    for (const path of exports.filter((p) => !p.includes('transactions'))) expectProblem(await get(path, { token: walletsOnly }), 403, 'FORBIDDEN');
    expect((await csvOf('/cl/v1/transactions.csv', walletsOnly)).rows.length).to.be.at.least(4);
    expectProblem(await get('/cl/v1/transactions.csv', { token: await key(['payouts:read']) }), 403, 'FORBIDDEN');
  });

  it("shows another business none of this one's rows", async () => {
    const other = await newBusiness();
    for (const path of ['/payouts.csv', '/bulk-payouts.csv', '/customers.csv', '/events.csv', '/cl/v1/transactions.csv']) {
      expect((await csvOf(path, other.token)).rows, path).to.deep.equal([]);
    }
    expectProblem(await get(`/cl/v1/webhooks/endpoints/${endpointId}/attempts.csv`, { token: other.token }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
  });
});

describe('a CSV export of 3,000 transactions', function () {
  this.timeout(300_000);
  const COUNT = 3_000;
  let biz: TestBusiness;

  before(async () => {
    biz = await newBusiness();
    await topup(biz.token, '100.00');
    const wallet = (await post('/cl/v1/wallets', { name: 'Many' }, { token: biz.token })).body;
    const db = running().db;
    const [{ id: operational }] = (await db.raw(`SELECT id FROM accounts WHERE kind = 'OPERATIONAL' AND business_id = ?`, [biz.id])).rows;
    // In batches of 1,000 funds of 0.01, each a transaction of its own time, both balances held (ledger_hold_balances).
    for (let done = 0; done < COUNT; done += 1_000) {
      await db.transaction(async (trx) => {
        await trx.raw('SELECT ledger_hold_balances(?::uuid, ARRAY[?, ?]::uuid[])', [biz.id, operational, wallet.id]);
        const result = await trx.raw(
          `SELECT count(*) FILTER (WHERE p -> 'refusal' IS NOT NULL)::int AS refused FROM (
             SELECT ledger_post(?::uuid, 'FUND', 'OPERATIONAL', NULL, 'WALLET', ?, '0.01', NULL, NULL, NULL) AS p
               FROM generate_series(1, 1000)) x`,
          [biz.id, wallet.id],
        );
        expect(result.rows[0].refused).to.equal(0);
        await trx.raw('SELECT ledger_release_balances(?::uuid)', [biz.id]);
      });
    }
  });

  it('streams every transaction once, newest first, as the list orders them', async () => {
    const res = await fetch(`${baseUrl()}/cl/v1/transactions.csv?type=FUND`, { headers: { authorization: `Bearer ${biz.token}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('transfer-encoding')).to.equal('chunked');
    const [header, ...rows] = parseCsv(await res.text());
    expect(header[0]).to.equal('created_at');
    const ids = rows.map((r) => r[header.indexOf('id')]);
    const expected = (
      await running().db('transactions').where({ business_id: biz.id, type: 'FUND' }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).select('id')
    ).map((r: { id: string }) => r.id);
    expect(expected).to.have.length(COUNT);
    expect(ids).to.deep.equal(expected);
    expect(rows.every((r) => r[header.indexOf('amount')] === '0.01')).to.equal(true);
  });
});
