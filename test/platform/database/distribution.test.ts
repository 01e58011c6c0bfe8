/**
 * The schema can be distributed by business (Citus: `npm run db:distribute`, src/db/distribution.ts,
 * docs/scale-out.md), checked on the catalog of the suite's migrated database; the rules are
 * plain catalog facts and hold the same on PostgreSQL (the Citus suite, test/citus/, then
 * distributes the schema on a cluster):
 *   - every table is a tenant table (distributed by `business_id`, colocated) unless it is
 *     named below as global, with the reason it is;
 *   - a tenant table carries `business_id NOT NULL` (a distribution column cannot be NULL);
 *   - every unique index of a tenant table (primary keys included) contains `business_id`;
 *   - every foreign key between tenant tables pairs `business_id` with `business_id`;
 *   - no global table references a tenant table;
 *   - no key column (an `id`, a `…_id` of a key, a column drawn from a sequence) is narrower
 *     than bigint or uuid, and every sequence is bigint;
 *   - every function of the ledger (src/ledger/sql/, src/payouts/sql/) takes the business
 *     as its first argument, `p_business uuid`, the argument Citus routes a call by, but
 *     for helpers named below that only run inside such a call.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { COORDINATOR_TABLES, DIRECTORY_TABLES, REFERENCE_TABLES } from '../../support/distribution.js';
import { running } from '../../support/service.js';

/**
 * Functions of the ledger's and payouts' files that do not take the business first: each
 * runs only inside a call that did (on that call's node), never called by the service.
 */
const LEDGER_HELPERS: Record<string, string> = {
  ledger_held_balances: "the batch's held balances, session state of the calling batch",
  ledger_posting_of: "rebuilds a replayed movement's posting inside ledger_keyed_open",
  ledger_posting_json: 'a posting from its transaction and account rows, inside ledger_post and ledger_posting_of',
  ledger_posting_object: "a posting from its values, inside ledger_posting_json and a batch's ledger_move_set",
  payout_posting_of: 'the payout view of a posting, inside payout_create_keyed',
  payout_event: 'takes the payout row (which carries its business), inside payout_create and payout_move',
  payout_event_data: "the event's data of a payout row, inside payout_event",
  payout_event_object: "an event's data from its values, inside payout_event_data and a batch's payout_create_set and payout_move_set",
  payout_create_refusal: "a payout request's refusal from what was read of it, inside payout_create and payout_create_set",
  payout_move_refusal: "a payout move's refusal from the payout's state, inside payout_move and payout_move_set",
};

const ROOT = path.resolve(import.meta.dirname, '../../..');

const GLOBAL = { ...REFERENCE_TABLES, ...COORDINATOR_TABLES, ...DIRECTORY_TABLES };

/** The service schema's tables. */
async function tables(): Promise<string[]> {
  const { rows } = await running().db.raw(
    `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')`,
  );
  return (rows as { name: string }[]).map((r) => r.name).sort();
}

/** The tenant tables: every table not named global. */
async function tenantTables(): Promise<string[]> {
  return (await tables()).filter((t) => !(t in GLOBAL));
}

/** Every .ts file under `dir`. */
function typescriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? typescriptFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

describe('distribution by business: the catalog keeps the rules of a distributed schema', () => {
  it('classifies every table: each global one is named with its reason, every other one is a tenant table with business_id NOT NULL', async () => {
    const all = await tables();
    expect(Object.keys(GLOBAL).filter((t) => !all.includes(t)), 'global tables named but absent').to.deep.equal([]);
    const tenants = await tenantTables();
    expect(tenants.length).to.be.greaterThan(25);
    const { rows } = await running().db.raw(
      `SELECT c.relname AS name FROM pg_class c
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(?)
          AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'business_id' AND a.attnotnull)`,
      [tenants],
    );
    expect(rows.map((r: { name: string }) => r.name), 'tenant tables without business_id NOT NULL').to.deep.equal([]);
  });

  it('every unique index of a tenant table, primary keys included, contains business_id', async () => {
    const { rows } = await running().db.raw(
      `SELECT i.indexrelid::regclass::text AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
        WHERE c.relname = ANY(?) AND c.relnamespace = current_schema()::regnamespace AND i.indisunique
          AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'business_id' AND a.attnum = ANY(i.indkey))
        ORDER BY 1`,
      [await tenantTables()],
    );
    expect(rows.map((r: { name: string }) => r.name), 'unique indexes without business_id').to.deep.equal([]);
  });

  it('every foreign key between tenant tables pairs business_id with business_id', async () => {
    const tenants = await tenantTables();
    const { rows } = await running().db.raw(
      `SELECT f.conname AS name, f.conrelid::regclass::text AS tbl FROM pg_constraint f
         JOIN pg_class c ON c.oid = f.conrelid JOIN pg_class r ON r.oid = f.confrelid
        WHERE f.contype = 'f' AND c.relnamespace = current_schema()::regnamespace
          AND c.relname = ANY(?) AND r.relname = ANY(?)
          AND NOT EXISTS (
            SELECT 1 FROM generate_subscripts(f.conkey, 1) k
             WHERE f.conkey[k] = (SELECT attnum FROM pg_attribute WHERE attrelid = f.conrelid AND attname = 'business_id')
               AND f.confkey[k] = (SELECT attnum FROM pg_attribute WHERE attrelid = f.confrelid AND attname = 'business_id'))
        ORDER BY 1`,
      [tenants, tenants],
    );
    expect(rows.map((r: { name: string }) => r.name), 'foreign keys not pairing business_id').to.deep.equal([]);
    const { rows: paired } = await running().db.raw(
      `SELECT count(*)::int AS n FROM pg_constraint f JOIN pg_class c ON c.oid = f.conrelid JOIN pg_class r ON r.oid = f.confrelid
        WHERE f.contype = 'f' AND c.relname = ANY(?) AND r.relname = ANY(?) AND c.relnamespace = current_schema()::regnamespace`,
      [tenants, tenants],
    );
    expect(paired[0].n, 'foreign keys between tenant tables found').to.be.greaterThan(30);
  });

  it('no global table references a tenant table', async () => {
    const { rows } = await running().db.raw(
      `SELECT f.conname AS name FROM pg_constraint f JOIN pg_class c ON c.oid = f.conrelid JOIN pg_class r ON r.oid = f.confrelid
        WHERE f.contype = 'f' AND c.relnamespace = current_schema()::regnamespace
          AND c.relname = ANY(?) AND r.relname = ANY(?)`,
      [Object.keys(GLOBAL), await tenantTables()],
    );
    expect(rows.map((r: { name: string }) => r.name), 'global → tenant foreign keys').to.deep.equal([]);
  });

  it('no key column is narrower than bigint or uuid, and every sequence is bigint', async () => {
    const { rows } = await running().db.raw(
      `SELECT DISTINCT c.relname || '.' || a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
          AND NOT (c.relname = ANY(?))
          AND (a.attname = 'id'
               OR pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%'
               OR (a.attname LIKE '%\\_id' AND EXISTS (
                     SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype IN ('p', 'u', 'f') AND a.attnum = ANY(k.conkey))))
          AND a.atttypid IN ('smallint'::regtype, 'integer'::regtype)`,
      [['knex_migrations', 'knex_migrations_lock']],
    );
    expect(rows, 'key columns narrower than bigint or uuid').to.deep.equal([]);
    const { rows: sequences } = await running().db.raw(
      `SELECT s.seqrelid::regclass::text AS name FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
        WHERE c.relnamespace = current_schema()::regnamespace AND s.seqtypid <> 'bigint'::regtype
          AND c.relname NOT LIKE 'knex\\_%'`,
    );
    expect(sequences, 'sequences narrower than bigint').to.deep.equal([]);
  });

  it('every function of the ledger takes the business first (p_business uuid), but helpers that run inside such a call', async () => {
    const files = ['ledger', 'payouts'].flatMap((capability) =>
      readdirSync(path.join(ROOT, 'src', capability, 'sql')).map((f) => readFileSync(path.join(ROOT, 'src', capability, 'sql', f), 'utf8')),
    );
    const names = new Set(files.flatMap((sql) => [...sql.matchAll(/CREATE\s+OR\s+REPLACE\s+FUNCTION\s+([a-z_0-9]+)\s*\(/gi)].map((m) => m[1])));
    expect(names.size).to.be.greaterThan(20);
    const { rows } = await running().db.raw(
      `SELECT p.proname AS name, coalesce(p.proargnames[1], '') AS first, coalesce(format_type(p.proargtypes[0], NULL), '') AS type
         FROM pg_proc p
        WHERE p.pronamespace = current_schema()::regnamespace AND p.proname = ANY(?)
          AND p.prorettype <> 'trigger'::regtype AND p.provolatile <> 'i'`,
      [[...names]],
    );
    const functions = rows as { name: string; first: string; type: string }[];
    expect(functions.map((f) => f.name)).to.include.members(['ledger_move', 'ledger_move_keyed', 'payout_move_batch']);
    const wrong = functions.filter((f) => !(f.name in LEDGER_HELPERS) && !(f.first === 'p_business' && f.type === 'uuid'));
    expect(wrong.map((f) => `${f.name}(${f.first} ${f.type})`), 'ledger functions whose first argument is not the business').to.deep.equal([]);
    expect(Object.keys(LEDGER_HELPERS).filter((h) => !functions.some((f) => f.name === h)), 'helpers named but absent').to.deep.equal([]);
    // A helper is not called by the service: each call from TypeScript names the business first.
    const called = typescriptFiles(path.join(ROOT, 'src')).flatMap((file) =>
      Object.keys(LEDGER_HELPERS).filter((h) => new RegExp(`\\b${h}\\s*\\(`).test(readFileSync(file, 'utf8'))).map((h) => `${h} in ${file}`),
    );
    expect(called, 'helpers called by the service').to.deep.equal([]);
  });
});
