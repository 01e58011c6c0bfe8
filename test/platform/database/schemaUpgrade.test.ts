/**
 * A database migrated before the baseline upgrades cleanly (src/db/legacyMigrations.ts,
 * src/db/migrations/024_baseline.ts). On databases of its own on the suite's cluster,
 * the test migrates one with the OLD migrations and OLD SQL definitions, taken from git
 * at LAST_LEGACY_COMMIT (the last commit before the baseline) and imported from a
 * temporary copy, writes money through the old ledger functions, then starts today's
 * code on it (two instances at once) and checks that:
 *   - nothing of the data changed: balances, transactions and their references, and the
 *     row count of every table;
 *   - knex's record now holds the baseline only, and knex finds nothing to run;
 *   - its catalog (src/db/schemaDescription.ts) is exactly that of a database migrated by
 *     today's code from the baseline: the baseline is the old schema, column for column;
 *   - a database migrated by an older release (only some of the old migrations) is
 *     refused, with what to do, and left as it was.
 * The commit must be in the clone: a shallow clone fails this test under CI=true, and
 * skips it with a notice elsewhere.
 */
import { execFileSync, execSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { connectAndMigrate, knexConfig, migrationSource } from '../../../src/db/knex.js';
import { BASELINE_MIGRATION, LEGACY_MIGRATIONS, LegacySchemaError } from '../../../src/db/legacyMigrations.js';
import { describeSchema, KNEX_TABLES } from '../../../src/db/schemaDescription.js';
import { schemaDrift, schemaMarkdown } from '../../../src/db/schemaMarkdown.js';
import { sqlDefinitions } from '../../../src/db/sqlFunctions.js';
import { assertLedgerConsistent } from '../../support/ledgerInvariants.js';
import { running } from '../../support/service.js';

/** The migrations after the baseline, which an upgraded database runs too. */
const LATER_MIGRATIONS = (await migrationSource.getMigrations([])).filter((name) => name !== BASELINE_MIGRATION);

/** The last commit whose src/db/migrations/ held 001_initial … 023_bulk_payout_counts. */
const LAST_LEGACY_COMMIT = 'a539eed';
const ROOT = path.resolve(import.meta.dirname, '../../..');

/** True when `commit` is in this clone's history. */
function hasCommit(commit: string): boolean {
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The URL of database `name` on the suite's cluster. */
const urlOf = (name: string) => running().databaseUrl.replace(/\/[^/]*$/, `/${name}`);

/** What an upgrade must leave as it was, read from `db`. */
async function snapshot(db: Knex, business: string) {
  const { rows: tables } = await db.raw(
    `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
        AND NOT (c.relname = ANY(?)) ORDER BY c.relname COLLATE "C"`,
    // The applier's record follows the .sql files of the code that starts; it is compared on its own.
    [[...KNEX_TABLES, 'sql_definitions']],
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables as { name: string }[]) counts[name] = (await db(name).count<{ n: number }[]>({ n: '*' }))[0].n;
  return {
    counts,
    balances: await db('accounts').where({ business_id: business }).orderBy('account_number').select('account_number', 'kind', 'balance'),
    transactions: await db('transactions').where({ business_id: business }).orderBy('reference')
      .select('id', 'reference', 'type', 'amount', 'debit_account_id', 'credit_account_id', 'refunded_amount'),
    entries: await db('ledger_entries').where({ business_id: business }).orderBy(['transaction_id', 'amount']).select('transaction_id', 'account_id', 'amount', 'balance_after'),
    payouts: await db('payouts').where({ business_id: business }).orderBy('id').select('id', 'status', 'amount', 'creation_transaction_id', 'outcome_transaction_id'),
  };
}

/** Runs `fn(args)` as one SQL function call on `db` and returns its jsonb result, failing on a refusal. */
async function call(db: Knex, fn: string, args: unknown[]): Promise<Record<string, any>> {
  const { rows } = await db.raw(`SELECT ${fn}(${args.map(() => '?').join(', ')}) AS r`, args as Knex.RawBinding[]);
  expect(rows[0].r?.refusal, `${fn} ${JSON.stringify(args)}`).to.equal(undefined);
  return rows[0].r;
}

/** Writes a business's money through the old ledger and payout functions; returns the business id. */
async function writeMoney(db: Knex): Promise<string> {
  const business = randomUUID();
  await db('businesses').insert({ id: business, name: 'Upgrade', currency: 'SAR' });
  const number = () => String(Math.floor(Math.random() * 1e11)).padStart(11, '0') + '9';
  const [walletA, walletB] = [randomUUID(), randomUUID()];
  await db('accounts').insert([
    ...['OPERATIONAL', 'SETTLEMENT', 'PAYOUT', 'IN_TRANSIT'].map((kind) => ({ id: randomUUID(), business_id: business, kind, account_number: number(), currency: 'SAR' })),
    { id: walletA, business_id: business, kind: 'WALLET', account_number: number(), currency: 'SAR' },
    { id: walletB, business_id: business, kind: 'WALLET', account_number: number(), currency: 'SAR' },
  ]);
  const customer = randomUUID();
  await db('customers').insert({ id: customer, business_id: business, status: 'ACTIVE', mobile_number: '966500000001', locale: 'en', wallet_id: walletA });
  const move = (type: string, request: object) => call(db, 'ledger_move', [business, type, JSON.stringify(request)]);
  await move('TOPUP', { amount: '1000.00', currency: 'SAR' });
  await move('FUND', { wallet_id: walletA, amount: '300.00', currency: 'SAR' });
  await move('TRANSFER', { source_wallet_id: walletA, destination_wallet_id: walletB, amount: '120.50', currency: 'SAR' });
  await move('WITHDRAWAL', { wallet_id: walletB, amount: '20.25', currency: 'SAR' });
  const payout = await move('PAYOUT', { wallet_id: walletB, amount: '10.00', currency: 'SAR' });
  await move('REVERSAL', { original_transaction_id: payout.id });
  await move('PAYOUT_ACCOUNT_TOPUP', { amount: '500.00', currency: 'SAR' });
  const paid = await call(db, 'payout_create', [business, JSON.stringify({ payout_amount: '75.00', customer_id: customer })]);
  await call(db, 'payout_create', [business, JSON.stringify({ payout_amount: '5.00', customer_id: customer })]); // stays PENDING
  await call(db, 'payout_move', [business, paid.payout.id, '{PENDING}', 'PROCESSING']);
  await call(db, 'payout_move', [business, paid.payout.id, '{PROCESSING}', 'COMPLETED']);
  return business;
}

describe('schema upgrade: a database migrated by 001–023 moves onto the baseline', function () {
  this.timeout(180_000);
  const suffix = randomUUID().slice(0, 8);
  const [legacy, fresh] = [`wallet_legacy_${suffix}`, `wallet_fresh_${suffix}`];
  const pools: Knex[] = [];
  let oldCode: string | undefined;

  before(async function () {
    if (!hasCommit(LAST_LEGACY_COMMIT)) {
      const message = `commit ${LAST_LEGACY_COMMIT} (the last one before the schema baseline) is not in this clone, so the upgrade from its migrations cannot be tested: fetch the full history (git fetch --unshallow; actions/checkout with fetch-depth: 0)`;
      if (process.env.CI === 'true') throw new Error(message);
      console.warn(`\n  !!! SKIPPED: ${message}\n`);
      this.skip();
    }
    oldCode = mkdtempSync(path.join(tmpdir(), 'wallet-legacy-code-'));
    execSync(`git archive ${LAST_LEGACY_COMMIT} src package.json | tar -x -C '${oldCode}'`, { cwd: ROOT, stdio: 'pipe' });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(oldCode, 'node_modules'));
    for (const name of [legacy, fresh]) await running().db.raw(`CREATE DATABASE ${name}`);
  });

  after(async () => {
    for (const pool of pools) await pool.destroy().catch(() => undefined);
    for (const name of [legacy, fresh]) await running().db.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    if (oldCode) rmSync(oldCode, { recursive: true, force: true });
  });

  it('keeps every row and balance, records the baseline, and leaves the catalog of a database migrated from the baseline', async () => {
    // The old code: its connectAndMigrate runs 001–023, then its SQL definitions (read beside it).
    const old = (await import(pathToFileURL(path.join(oldCode!, 'src/db/knex.ts')).href)) as { connectAndMigrate: typeof connectAndMigrate };
    const legacyDb = await old.connectAndMigrate(urlOf(legacy), { poolSize: 2 });
    pools.push(legacyDb);
    expect(await legacyDb('knex_migrations').orderBy('id').pluck('name')).to.deep.equal(LEGACY_MIGRATIONS);
    const business = await writeMoney(legacyDb);
    await assertLedgerConsistent(legacyDb, business);
    const kept = await snapshot(legacyDb, business);
    expect(kept.transactions.map((t) => t.type).sort()).to.deep.equal([
      'CUSTOMER_PAYOUT', 'CUSTOMER_PAYOUT', 'CUSTOMER_PAYOUT_COMPLETION', 'FUND', 'PAYOUT', 'REVERSAL', 'TOPUP', 'TOPUP', 'TRANSFER', 'WITHDRAWAL',
    ]);

    // A database of an older release (here: 023 not yet run) is refused and left as it was.
    await legacyDb('knex_migrations').where({ name: '023_bulk_payout_counts' }).delete();
    const refusal = await connectAndMigrate(urlOf(legacy), { poolSize: 2 }).then(
      (db) => db.destroy().then(() => null),
      (err: unknown) => err,
    );
    expect(refusal).to.be.instanceOf(LegacySchemaError);
    expect(String(refusal)).to.match(/older than this one's schema baseline.*missing: 023_bulk_payout_counts\).*previous release/);
    expect(await legacyDb('knex_migrations').pluck('name')).to.have.length(LEGACY_MIGRATIONS.length - 1);
    await legacyDb('knex_migrations').insert({ name: '023_bulk_payout_counts', batch: 1, migration_time: new Date() });
    await legacyDb.destroy();
    pools.length = 0;

    // Today's code, two instances starting at once.
    const [upgraded, second] = await Promise.all([connectAndMigrate(urlOf(legacy), { poolSize: 2 }), connectAndMigrate(urlOf(legacy), { poolSize: 2 })]);
    pools.push(upgraded, second);
    expect(await upgraded('knex_migrations').orderBy('id').pluck('name')).to.deep.equal([BASELINE_MIGRATION, ...LATER_MIGRATIONS]);
    const [, pending] = (await upgraded.migrate.list()) as [unknown[], unknown[]];
    expect(pending, 'migrations knex would still run').to.deep.equal([]);
    const after = await snapshot(upgraded, business);
    // The directories of values unique across businesses (025_business_keys) are new: filled from the rows they index.
    expect(after.counts.account_numbers, 'account numbers entered in their directory').to.equal(kept.counts.accounts);
    for (const directory of ['account_numbers', 'card_tokens', 'card_pans']) delete after.counts[directory];
    // A business's payout settings (031_payout_settings) have a row only once enforced: none here.
    expect(Number(after.counts.payout_settings)).to.equal(0);
    delete after.counts.payout_settings;
    // The job outbox (032_job_outbox) is new and empty: nothing was enqueued.
    expect(Number(after.counts.job_outbox)).to.equal(0);
    delete after.counts.job_outbox;
    // The audit log (041_audit_log) and the request log (044_api_request_log) are new and empty: the upgrade is no request.
    for (const table of ['audit_events', 'api_requests']) {
      expect(Number(after.counts[table]), table).to.equal(0);
      delete after.counts[table];
    }
    // The portal's people (042_portal_users) are new and empty: an upgrade invites nobody.
    for (const table of ['portal_users', 'portal_user_emails', 'portal_sessions', 'sandbox_user_invitations']) {
      expect(Number(after.counts[table]), table).to.equal(0);
      delete after.counts[table];
    }
    // Payout approvals (049_payout_approvals) are new and empty: no business had rules to hold a payout.
    expect(Number(after.counts.payout_approvals)).to.equal(0);
    delete after.counts.payout_approvals;
    expect(after).to.deep.equal(kept);
    expect((await upgraded('sql_definitions').pluck('name')).sort()).to.deep.equal(sqlDefinitions().map((d) => d.name).sort());

    const baseline = await connectAndMigrate(urlOf(fresh), { poolSize: 2 });
    pools.push(baseline);
    // As docs/schema.md's Markdown, so that a difference names its table and line.
    const drift = schemaDrift(schemaMarkdown(await describeSchema(baseline)), schemaMarkdown(await describeSchema(upgraded)), ['from the baseline', 'upgraded']);
    expect(drift, 'the catalog of the upgraded database').to.equal(null);

    // Today's ledger moves money on the upgraded database.
    const [walletA, walletB] = await upgraded('accounts').where({ business_id: business, kind: 'WALLET' }).orderBy('account_number').pluck('id');
    await call(upgraded, 'ledger_move', [business, 'TRANSFER', JSON.stringify({ source_wallet_id: walletB, destination_wallet_id: walletA, amount: '1.00', currency: 'SAR' })]);
    await assertLedgerConsistent(upgraded, business);
  });
});

// knexConfig is what the knex CLI uses (knexfile.ts): it lists the baseline alone.
describe('schema upgrade: the migration source', () => {
  it('lists the baseline first and none of the legacy names', async () => {
    const db = knexFactory(knexConfig('postgres://unused'));
    try {
      const source = db.client.config.migrations.migrationSource;
      const names = await source.getMigrations([]);
      expect(names[0]).to.equal(BASELINE_MIGRATION);
      expect(names.filter((n: string) => LEGACY_MIGRATIONS.includes(n))).to.deep.equal([]);
    } finally {
      await db.destroy();
    }
  });
});
