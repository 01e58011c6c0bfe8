/**
 * A page of a list costs the same however long the business's history: each list query,
 * with each of its filters, reads one index range of the listed table in the order of the
 * page (newest first), stops at the page's end, and sorts nothing. Checked on the plans the
 * list functions' own queries get with every other way out priced away (sequential and
 * bitmap scans and sorts off: a plan that still has a Sort, or no ordered index scan with
 * the filter in its condition, has no index to read the page from).
 */
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { listPayoutApprovals } from '../../../src/payouts/approvals.js';
import { listBulkPayouts } from '../../../src/payouts/bulkReports.js';
import { listCustomerPayouts } from '../../../src/payouts/customerPayouts.js';
import { listWallets } from '../../../src/businesses/wallets.js';
import { listTransactions } from '../../../src/ledger/transactions.js';
import { listEvents } from '../../../src/webhooks/index.js';
import { listDeliveryAttempts } from '../../../src/webhooks/attempts.js';
import { post } from '../../support/client.js';
import { testSecret } from '../../support/webhooks.js';
import { newBusiness, type TestBusiness } from '../../support/fixtures.js';
import { nodes, plansOf as plansWith, type PlanNode } from '../../support/plans.js';
import { running } from '../../support/service.js';

/** The plans of `run`'s statements reading `table`, with sequential and bitmap scans and sorts priced away. */
const plansOf = (db: Knex, table: string, run: (db: Knex) => Promise<unknown>) => plansWith(db, table, run, ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']);

/** Asserts one ordered index scan of `table` by `index`, its condition naming `columns`, and no Sort. */
function expectIndexRange(plans: PlanNode[], table: string, index: string, columns: string[], label: string): void {
  for (const plan of plans) {
    const all = nodes(plan);
    expect(all.filter((n) => n['Node Type'].includes('Sort')).map((n) => n['Node Type']), `${label}: sorts`).to.deep.equal([]);
    const scans = all.filter((n) => n['Relation Name'] === table);
    expect(scans.map((n) => `${n['Node Type']} ${n['Index Name']}`), `${label}: scans of ${table}`).to.deep.equal([`Index Scan ${index}`]);
    for (const column of columns) expect(scans[0]['Index Cond'], `${label}: index condition`).to.include(column);
    expect(plan['Node Type'], `${label}: the page's end stops the scan`).to.equal('Limit');
  }
}

describe('list pages read one index range, whatever the history', () => {
  let db: Knex;
  let b: TestBusiness;
  const from = '2026-01-01T00:00:00.000Z';
  const to = '2027-01-01T00:00:00.000Z';
  const cursor = Buffer.from(`${to}|00000000-0000-4000-8000-000000000000`).toString('base64url');

  before(async () => {
    b = await newBusiness();
    db = knex({ client: 'pg', connection: running().databaseUrl, pool: { min: 0, max: 2 } });
  });
  after(() => db?.destroy());

  it('listCustomerPayouts: unfiltered, by time, by status and by external reference, with a cursor', async () => {
    const cases: [string, Record<string, string>, string, string[]][] = [
      ['no filter', {}, 'payouts_business_id_created_at_id_index', ['business_id']],
      ['created range', { created_from: from, created_to: to }, 'payouts_business_id_created_at_id_index', ['business_id', 'created_at']],
      ['status', { status: 'FAILED' }, 'payouts_business_id_status_created_at_id_index', ['business_id', 'status']],
      ['external reference', { external_reference: 'payroll-7' }, 'payouts_business_id_external_reference_created_at_id_index', ['business_id', 'external_reference']],
    ];
    for (const [label, filter, index, columns] of cases) {
      const plans = await plansOf(db, 'payouts', (d) => listCustomerPayouts(d, b.id, { limit: 20, cursor, ...filter }));
      expectIndexRange(plans, 'payouts', index, columns, `payouts, ${label}`);
    }
  });

  it('listBulkPayouts: unfiltered and by time', async () => {
    for (const filter of [{}, { created_from: from, created_to: to }]) {
      const plans = await plansOf(db, 'bulk_payouts', (d) => listBulkPayouts(d, b.id, { limit: 20, cursor, ...filter }));
      expectIndexRange(plans, 'bulk_payouts', 'bulk_payouts_business_id_created_at_id_index', ['business_id'], `bulk payouts ${JSON.stringify(filter)}`);
    }
  });

  it('listPayoutApprovals: unfiltered and by status', async () => {
    const cases: [Record<string, 'PENDING'>, string, string[]][] = [
      [{}, 'payout_approvals_business_id_created_at_id_index', ['business_id']],
      [{ status: 'PENDING' }, 'payout_approvals_business_id_status_created_at_id_index', ['business_id', 'status']],
    ];
    for (const [filter, index, columns] of cases) {
      const plans = await plansOf(db, 'payout_approvals', (d) => listPayoutApprovals(d, b.id, { limit: 20, cursor, ...filter }));
      expectIndexRange(plans, 'payout_approvals', index, columns, `payout approvals ${JSON.stringify(filter)}`);
    }
  });

  it('listTransactions: unfiltered, by time and by amount', async () => {
    for (const filter of [{}, { created_from: from, created_to: to }, { amount_min: '10.00', amount_max: '20.00' }]) {
      const plans = await plansOf(db, 'transactions', (d) => listTransactions(d, b.id, { limit: 20, cursor, ...filter }));
      expectIndexRange(plans.slice(0, 1), 'transactions', 'transactions_business_id_created_at_id_index', ['business_id'], `transactions ${JSON.stringify(filter)}`);
    }
  });

  it('listWallets: by name and by external reference', async () => {
    const cases: [Record<string, string>, string, string][] = [
      [{ name: 'Payroll' }, 'accounts_business_id_name_created_at_id_index', 'name'],
      [{ external_reference: 'ext-1' }, 'accounts_business_id_external_reference_created_at_id_index', 'external_reference'],
    ];
    for (const [filter, index, column] of cases) {
      const plans = await plansOf(db, 'accounts', (d) => listWallets(d, b.id, { limit: 20, cursor, ...filter }));
      expectIndexRange(plans, 'accounts', index, ['business_id', column], `wallets ${JSON.stringify(filter)}`);
    }
  });

  it('listEvents: about one object (a payout or a customer), also of one code', async () => {
    for (const filter of [{ object_id: '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f' }, { object_id: '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f', code: 'payout.failed' }]) {
      const plans = await plansOf(db, 'outbox_events', (d) => listEvents(d, b.id, { limit: 20, cursor, ...filter }, 'v4'));
      expectIndexRange(plans, 'outbox_events', 'outbox_events_business_id_object_created_at_id_index', ['business_id', 'payout_id'], `events ${JSON.stringify(filter)}`);
    }
  });

  it('listWebhookDeliveryAttempts: unfiltered and by event, event code, payout and outcome', async () => {
    const made = await post('/cl/v1/webhooks/endpoints', { url: 'https://hooks.example.com/plans', secret: testSecret(), events: ['payout.pending'] }, { token: b.token });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    const [endpoint] = await db('webhook_endpoints').where({ business_id: b.id }).select('id');
    const id = '00000000-0000-4000-8000-000000000001';
    const cases: [Record<string, string>, string, string[]][] = [
      [{}, 'webhook_delivery_attempts_endpoint_id_created_at_id_index', ['endpoint_id']],
      [{ outcome: 'FAILED' }, 'webhook_delivery_attempts_endpoint_id_created_at_id_index', ['endpoint_id']],
      [{ event_id: id }, 'webhook_attempts_endpoint_event_index', ['endpoint_id', 'event_id']],
      [{ event_code: 'payout.pending' }, 'webhook_attempts_endpoint_event_code_index', ['endpoint_id', 'event_code']],
      [{ payout_id: id }, 'webhook_attempts_endpoint_payout_index', ['endpoint_id', 'payout_id']],
    ];
    for (const [filter, index, columns] of cases) {
      const plans = await plansOf(db, 'webhook_delivery_attempts', (d) => listDeliveryAttempts(d, b.id, endpoint.id, { limit: 20, cursor, ...filter }));
      expectIndexRange(plans, 'webhook_delivery_attempts', index, columns, `attempts ${JSON.stringify(filter)}`);
    }
  });
});
