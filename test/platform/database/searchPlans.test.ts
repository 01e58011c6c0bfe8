/**
 * A search costs the same however long the business's history (openapi/DESIGN.md, "Search"):
 * each capability's search statement reads its table only through an index (the trigram
 * index of the searched fields, the primary key for an id, the cards' last four digits),
 * keeps the business's rows and ends at its LIMIT, never with a sequential scan. Checked
 * on the plans the planner chooses, nothing priced away, for the search functions' own
 * statements on tables holding many rows of the business.
 */
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import type pg from 'pg';
import { searchWallets } from '../../../src/businesses/walletSearch.js';
import { searchCards } from '../../../src/cards/search.js';
import { searchCustomers } from '../../../src/customers/search.js';
import { searchTerm, type SearchHit, type SearchTerm } from '../../../src/kernel/search.js';
import { searchTransactions } from '../../../src/ledger/transactionSearch.js';
import { searchBulkPayouts, searchPayouts } from '../../../src/payouts/search.js';
import { searchEvents } from '../../../src/webhooks/eventSearch.js';
import { newBusiness, type TestBusiness } from '../../support/fixtures.js';
import { nodes, plansOf, type PlanNode } from '../../support/plans.js';
import { running } from '../../support/service.js';

type Search = (db: Knex, businessId: string, term: SearchTerm, cap: number) => Promise<SearchHit[]>;

const ID = '01a250e5-d328-71a5-a1fa-1a9c9d7f5995';

/** Each search, its table, the indexes it may read, and the q's that reach each of its fields. */
const SEARCHES: [string, Search, string, string[], string[]][] = [
  ['payouts', searchPayouts, 'payouts', ['payouts_search', 'payouts_pkey'], ['CB-77', ID]],
  ['bulk payouts', searchBulkPayouts, 'bulk_payouts', ['bulk_payouts_pkey'], [ID]],
  ['customers', searchCustomers, 'customers', ['customers_search', 'customers_pkey'], ['Sara', '0501234567', ID]],
  ['wallets', searchWallets, 'accounts', ['accounts_search', 'accounts_pkey'], ['Payroll', '9000012', ID]],
  ['transactions', searchTransactions, 'transactions', ['transactions_search', 'transactions_pkey'], ['TXN1234', ID]],
  ['cards', searchCards, 'cards', ['cards_business_id_last_4_digits_index', 'cards_pkey'], ['4242', ID]],
  ['events', searchEvents, 'outbox_events', ['outbox_events_pkey'], [ID]],
];

/**
 * Asserts that `plan` reads `table` only through `indexes` (no sequential scan), keeps the
 * business's rows (`business_id` in an index's condition, or the rows' filter) and ends at a Limit.
 */
function expectIndexed(plan: PlanNode & { Filter?: string }, table: string, indexes: string[], label: string): void {
  const all = nodes(plan) as (PlanNode & { Filter?: string })[];
  expect(all.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']), `${label}: sequential scans`).to.deep.equal([]);
  const reads = all.filter((n) => n['Index Name']);
  expect(reads, `${label}: index reads`).to.not.be.empty;
  for (const read of reads) expect(indexes, `${label}: the index ${read['Node Type']} reads`).to.include(read['Index Name']);
  const business = all.filter((n) => `${n['Index Cond'] ?? ''} ${n.Filter ?? ''}`.includes('business_id'));
  expect(business.map((n) => n['Relation Name'] ?? n['Index Name']), `${label}: the business's rows`).to.not.be.empty;
  expect(all.filter((n) => n['Relation Name'] && n['Relation Name'] !== table), `${label}: other tables`).to.deep.equal([]);
  expect(plan['Node Type'], `${label}: the LIMIT ends it`).to.equal('Limit');
}

/** Many rows of one business per table, `$1` the business (the columns a row must have). */
const MANY: Record<string, string> = {
  payouts: `INSERT INTO payouts (id, business_id, customer_id, wallet_id, amount, currency, status, external_reference, creation_transaction_id)
    SELECT gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), 1, 'SAR', 'COMPLETED', 'payroll-' || n, gen_random_uuid() FROM generate_series(1, 10000) n`,
  bulk_payouts: `INSERT INTO bulk_payouts (id, business_id, idempotency_key, request_hash, item_count, accepted_count)
    SELECT gen_random_uuid(), $1, 'key-' || n, 'hash', 1, 1 FROM generate_series(1, 10000) n`,
  customers: `INSERT INTO customers (id, business_id, status, mobile_number, locale, full_name, external_reference)
    SELECT gen_random_uuid(), $1, 'INACTIVE', '9665' || lpad(n::text, 8, '0'), 'en', 'Customer ' || n, 'customer-' || n FROM generate_series(1, 10000) n`,
  accounts: `INSERT INTO accounts (id, business_id, kind, account_number, currency, name, external_reference)
    SELECT gen_random_uuid(), $1, 'WALLET', '9' || lpad(n::text, 11, '0'), 'SAR', 'Wallet ' || n, 'ref-' || n FROM generate_series(1, 10000) n`,
  transactions: `INSERT INTO transactions (id, reference, business_id, type, status, amount, currency, debit_account_id, credit_account_id, external_reference)
    SELECT gen_random_uuid(), 'TXN' || lpad(n::text, 12, '0'), $1, 'FUND', 'COMPLETED', 1, 'SAR', gen_random_uuid(), gen_random_uuid(), 'fund-' || n FROM generate_series(1, 10000) n`,
  cards: `INSERT INTO cards (id, business_id, customer_id, account_id, issuance_id, type, status, design, last_4_digits, expiry_date, pan_fingerprint, pan_sealed, pan_key_version, cvv_sealed, cvv_key_version)
    SELECT gen_random_uuid(), $1, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'VIRTUAL', 'ACTIVE', 'CLASSIC', lpad((n % 10000)::text, 4, '0'), '2030-01-31', md5(n::text), 'sealed', 1, 'sealed', 1 FROM generate_series(1, 10000) n`,
  outbox_events: `INSERT INTO outbox_events (id, business_id, code, data) SELECT gen_random_uuid(), $1, 'payout.pending', '{}' FROM generate_series(1, 10000) n`,
};

/**
 * `table` holding many rows of the business `id` (rolled back with the plans' transaction;
 * the foreign keys' and the outbox's triggers off for it), its statistics up to date and its
 * trigram index's pending entries merged, as autovacuum leaves them.
 */
async function many(client: pg.Client, table: string, id: string, index: string): Promise<void> {
  await client.query('SET LOCAL session_replication_role = replica');
  await client.query(MANY[table], [id]);
  if (index.endsWith('_search')) await client.query(`SELECT gin_clean_pending_list('${index}')`);
  await client.query(`ANALYZE ${table}`);
}

describe('a search reads indexes of the business, whatever its history', function () {
  this.timeout(120_000);
  let db: Knex;
  let b: TestBusiness;

  before(async () => {
    b = await newBusiness();
    db = knex({ client: 'pg', connection: running().databaseUrl, pool: { min: 0, max: 2 } });
  });
  after(() => db?.destroy());

  for (const [label, search, table, indexes, qs] of SEARCHES) {
    it(`${label} among many of the business: by each field, through ${indexes.join(' or ')}`, async () => {
      for (const q of qs) {
        const plans = await plansOf(db, table, (d) => search(d, b.id, searchTerm(q), 10), [], (c) => many(c, table, b.id, indexes[0]));
        for (const plan of plans) expectIndexed(plan, table, indexes, `${label}, ${q}`);
      }
    });
  }
});
