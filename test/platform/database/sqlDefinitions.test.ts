/**
 * The service's SQL as a reader finds it (src/db/sqlFunctions.ts): every live
 * function and trigger of the service's schema is defined in exactly one `.sql`
 * file and every file's definitions are live; migrations hold DDL only, and nothing
 * they create calls a function of the files; every error code the SQL can refuse with has its HTTP status in
 * src/kernel/errors.ts (the only map); every table of a business's data carries
 * `business_id`; and the applier applies what changed, once, however many
 * instances start.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { connectAndMigrate } from '../../../src/db/knex.js';
import { applySqlDefinitions, dependencyOrder, parseDefinition, sqlDefinitions, type SqlDefinition } from '../../../src/db/sqlFunctions.js';
import { ERROR_STATUS } from '../../../src/kernel/errors.js';
import { ROOM_FLOORS, type Room } from '../../../src/db/tableOwners.js';
import { fundedWallet, newBusiness, newWallet, topup } from '../../support/fixtures.js';
import { withNestedPlans } from '../../support/nestedPlans.js';
import { running } from '../../support/service.js';

const definitions = sqlDefinitions();

/** The definitions' files that define `name` (a function, or `table.trigger`). */
function definersOf(name: string, of: (d: SqlDefinition) => string[]): string[] {
  return definitions.flatMap((d) => of(d).filter((n) => n === name).map(() => d.name));
}

/** Every function of the service's schema, by name, with its number of overloads (extension members left out). */
async function liveFunctions(db: Knex): Promise<Map<string, number>> {
  const { rows } = await db.raw(
    `SELECT p.proname AS name, count(*)::int AS n FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      GROUP BY p.proname`,
  );
  return new Map(rows.map((r: { name: string; n: number }) => [r.name, r.n]));
}

describe('SQL definitions: one current definition per function', () => {
  it('finds the files of every capability, each defining at least one function', () => {
    expect(definitions.map((d) => d.name)).to.include.members([
      'kernel/sql/idempotency_begin.sql',
      'ledger/sql/ledger_move.sql',
      'ledger/sql/ledger_post.sql',
      'payouts/sql/payout_create.sql',
      'payouts/sql/payout_posting_of.sql',
    ]);
    for (const d of definitions) expect(d.functions, d.name).to.not.be.empty;
  });

  it('every live function of the service schema is defined in exactly one file, and every file’s function is live (one overload)', async () => {
    const live = await liveFunctions(running().db);
    expect(live.size).to.be.greaterThan(20);
    for (const [name, overloads] of live) {
      expect(definersOf(name, (d) => d.functions), `the files defining ${name}`).to.have.length(1);
      expect(overloads, `overloads of ${name}`).to.equal(1);
    }
    for (const d of definitions) for (const f of d.functions) expect(live.has(f), `${f} (${d.name}) is live`).to.equal(true);
  });

  it('every PL/pgSQL function plans with enable_seqscan off, so a plan cached while a table was small keeps its index', async () => {
    const { rows } = await running().db.raw(
      `SELECT p.proname AS name, coalesce(p.proconfig, '{}') AS config FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE l.lanname = 'plpgsql' AND p.pronamespace = current_schema()::regnamespace`,
    );
    expect(rows.length).to.be.greaterThan(10);
    for (const r of rows as { name: string; config: string[] }[]) expect(r.config, r.name).to.include('enable_seqscan=off');
  });

  it('a keyed transfer’s nested statements use their indexes even where the planner prices index scans out', async () => {
    const b = await newBusiness();
    await topup(b.token, '10.00');
    const [from, to] = [await fundedWallet(b.token, '5.00'), await newWallet(b.token)];
    // random_page_cost this high makes a sequential scan the cheapest plan of any lookup the
    // planner may choose it for.
    const { plans } = await withNestedPlans(
      async (client) => {
        const items = [{ type: 'TRANSFER', request: { source_wallet_id: from.id, destination_wallet_id: to.id, amount: '1.00' }, key: [`business:${b.id}`, randomUUID(), 'h', 60, 60, {}] }];
        const { rows } = await client.query('SELECT ledger_move_batch($1::uuid, $2::jsonb) AS results', [b.id, JSON.stringify(items)]);
        expect(rows[0].results[0], JSON.stringify(rows[0].results)).to.have.property('posting');
      },
      { settings: ['random_page_cost = 1000000'] },
    );
    const lookups = plans.filter((p) => /idempotency_keys|FROM accounts/.test(p));
    expect(lookups.length, plans.join('\n')).to.be.greaterThan(2);
    expect(plans.filter((p) => /Seq Scan on (idempotency_keys|accounts|transactions|ledger_entries)/.test(p)), 'sequential scans').to.deep.equal([]);
  });

  it('every trigger of the service schema is created in exactly one file, beside its function, and every file’s trigger exists', async () => {
    const { rows } = await running().db.raw(
      `SELECT c.relname || '.' || t.tgname AS name, p.proname AS function FROM pg_trigger t
         JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace`,
    );
    expect(rows.length).to.be.greaterThan(1);
    for (const { name, function: fn } of rows as { name: string; function: string }[]) {
      const files = definersOf(name, (d) => d.triggers);
      expect(files, `the files creating ${name}`).to.have.length(1);
      expect(definersOf(fn, (d) => d.functions), `${name} calls ${fn} of the same file`).to.deep.equal(files);
    }
    const live = new Set(rows.map((r: { name: string }) => r.name));
    for (const d of definitions) for (const t of d.triggers) expect(live.has(t), `${t} (${d.name}) exists`).to.equal(true);
  });

  it('migrations hold DDL only: no function, procedure, trigger or DO block', () => {
    const dir = new URL('../../../src/db/migrations/', import.meta.url);
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    expect(files).to.include('024_baseline.ts').and.include('baseline/ledger.ts');
    for (const file of files) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      expect(text, file).to.not.match(/\bCREATE\s+(OR\s+REPLACE\s+)?(CONSTRAINT\s+)?(FUNCTION|TRIGGER|PROCEDURE)\b/i);
      expect(text, `${file} has a DO block or a function body`).to.not.match(/\bDO\s+(LANGUAGE\s+\w+\s+)?\$|\$\$|\bLANGUAGE\s+(plpgsql|sql)\b/i);
    }
  });

  it('calls down only: a file calls its own room and the rooms of lower floors (src/db/tableOwners.ts)', () => {
    const folder = (name: string) => name.slice(0, name.indexOf('/')) as Room;
    const calls: string[] = [];
    for (const d of definitions) {
      expect(ROOM_FLOORS[folder(d.name)], `the floor of ${d.name}'s room`).to.be.a('number');
      for (const m of d.sql.replace(/--[^\n]*/g, '').matchAll(/\b([a-z_][a-z0-9_]*)\s*\(/g)) {
        const callee = definitions.find((o) => o.functions.includes(m[1]));
        if (!callee || folder(callee.name) === folder(d.name) || ROOM_FLOORS[folder(callee.name)] < ROOM_FLOORS[folder(d.name)]) continue;
        calls.push(`${d.name} → ${m[1]}`);
      }
    }
    expect(calls, 'calls up or sideways').to.deep.equal([]);
    // The check sees calls down: payouts call the ledger, the customers, the events and the kernel; the ledger calls the events.
    const down = definitions.filter((d) => folder(d.name) === 'payouts').flatMap((d) => [...d.sql.matchAll(/\b(ledger_[a-z_]+|idempotency_[a-z_]+|event_emit[a-z_]*|customer_[a-z_]+)\s*\(/g)]);
    expect(down.length, 'calls from payouts down').to.be.greaterThan(0);
    expect(definitions.filter((d) => folder(d.name) === 'ledger' && /\bevent_emit\s*\(/.test(d.sql)), 'calls from the ledger down to the events').to.have.length.greaterThan(0);
  });

  it('no default, constraint or index of the schema calls a function of the .sql files (the migrations run before them)', async () => {
    const { rows } = await running().db.raw(
      `SELECT d.classid::regclass::text AS kind, d.objid, p.proname AS function FROM pg_depend d JOIN pg_proc p ON p.oid = d.refobjid
        WHERE d.refclassid = 'pg_proc'::regclass AND p.pronamespace = current_schema()::regnamespace
          AND d.classid IN ('pg_attrdef'::regclass, 'pg_constraint'::regclass, 'pg_class'::regclass)`,
    );
    expect(rows, 'defaults, constraints and indexes that call a function of a .sql file').to.deep.equal([]);
  });

  it('orders files after the files whose functions they call', () => {
    const order = definitions.map((d) => d.name);
    for (const d of definitions) {
      for (const m of d.sql.replace(/--[^\n]*/g, '').matchAll(/\b([a-z_][a-z0-9_]*)\s*\(/g)) {
        const callee = definitions.find((o) => o !== d && o.functions.includes(m[1]));
        // PL/pgSQL binds its calls when it runs; only SQL-language bodies need their callees first.
        if (callee && /LANGUAGE sql/i.test(d.sql) && !/LANGUAGE plpgsql/i.test(d.sql)) {
          expect(order.indexOf(callee.name), `${callee.name} before ${d.name}`).to.be.lessThan(order.indexOf(d.name));
        }
      }
    }
    const a = parseDefinition('x/sql/a.sql', 'CREATE OR REPLACE FUNCTION a() RETURNS int LANGUAGE sql AS $$ SELECT b() $$;');
    const b = parseDefinition('x/sql/b.sql', 'CREATE OR REPLACE FUNCTION b() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;');
    expect(dependencyOrder([a, b]).map((d) => d.name)).to.deep.equal(['x/sql/b.sql', 'x/sql/a.sql']);
  });
});

describe('SQL definitions: one place where an error code gets its status', () => {
  /** Every code a `.sql` file can refuse with: the first argument of each ledger_refusal call. */
  const codes = new Set(definitions.flatMap((d) => [...d.sql.matchAll(/ledger_refusal\(\s*'([A-Z_]+)'/g)].map((m) => m[1])));

  it('every code the SQL can refuse with is one of src/kernel/errors.ts', () => {
    expect(codes.size).to.be.greaterThan(15);
    const missing = [...codes].filter((code) => !(code in ERROR_STATUS));
    expect(missing, 'codes the SQL refuses with that src/kernel/errors.ts does not map').to.deep.equal([]);
  });

  it('refusals are built by ledger_refusal only, and carry no HTTP status', async () => {
    for (const d of definitions) {
      expect(d.sql, `${d.name} maps a code to an HTTP status`).to.not.match(/'status',\s*(CASE|[0-9])/i);
      if (d.name !== 'ledger/sql/ledger_refusal.sql') expect(d.sql, `${d.name} builds a refusal itself`).to.not.match(/'code',/);
      // Every refusal names its code as a literal, so that the list above is complete.
      expect(d.sql, d.name).to.not.match(/(?<!FUNCTION\s+)ledger_refusal\(\s*[^'\s]/);
    }
    const { rows } = await running().db.raw("SELECT ledger_refusal('INSUFFICIENT_FUNDS', 'detail') AS r");
    expect(rows[0].r).to.deep.equal({ refusal: { code: 'INSUFFICIENT_FUNDS', detail: 'detail', pointer: null } });
  });
});

/**
 * The tables that hold no business's data, each with why. Every other table of the
 * service's schema must carry `business_id`, so that the schema can be distributed by
 * it with each movement on one shard. (pg-boss keeps its queue in its own schema.)
 */
const GLOBAL_TABLES: Record<string, string> = {
  businesses: 'the tenants themselves: a business row is keyed by its own id',
  settings: "the service's own secrets and keys, shared by every instance",
  rate_limits: 'request counters per client or address, worth nothing after a restart',
  knex_migrations: "the migrator's record of the schema's version",
  knex_migrations_lock: "the migrator's lock",
  sql_definitions: "the applier's record of the SQL definitions applied",
};

describe('tenancy: every table of a business’s data carries business_id', () => {
  it('lists the tables of the migrated database and finds business_id in each but the global ones', async () => {
    const { rows } = await running().db.raw(
      `SELECT t.table_name AS name, c.is_nullable AS nullable FROM information_schema.tables t
         LEFT JOIN information_schema.columns c
           ON c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name = 'business_id'
        WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`,
    );
    const tables = rows as { name: string; nullable: string | null }[];
    expect(tables.length).to.be.greaterThan(25);
    const without = tables.filter((t) => t.nullable === null).map((t) => t.name);
    expect(without.sort(), 'tables without business_id').to.deep.equal(Object.keys(GLOBAL_TABLES).sort());
    expect(tables.find((t) => t.name === 'ledger_entries')?.nullable).to.equal('NO');
  });

  it('each ledger entry carries the business of its transaction', async () => {
    const { rows } = await running().db.raw(
      `SELECT count(*)::int AS entries, count(*) FILTER (WHERE e.business_id <> t.business_id)::int AS wrong
         FROM ledger_entries e JOIN transactions t ON t.id = e.transaction_id`,
    );
    expect(rows[0].wrong).to.equal(0);
  });
});

describe('SQL definitions: the applier', function () {
  this.timeout(120_000);
  const database = `wallet_sql_${randomUUID().slice(0, 8)}`;
  let first: Knex;
  let second: Knex;

  before(async () => {
    await running().db.raw(`CREATE DATABASE ${database}`);
    const url = running().databaseUrl.replace(/\/[^/]*$/, `/${database}`);
    first = await connectAndMigrate(url, { poolSize: 4 });
    second = await connectAndMigrate(url, { poolSize: 4 });
  });

  after(async () => {
    await first?.destroy();
    await second?.destroy();
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  const byName = <T extends { name: string }>(rows: T[]): T[] => [...rows].sort((x, y) => (x.name < y.name ? -1 : 1));
  const recorded = async () => byName((await first('sql_definitions')) as { name: string; sha256: string; functions: string[]; applied_at: Date }[]);

  it('records every file with its content’s hash on a fresh database; a start with nothing changed applies nothing', async () => {
    const rows = await recorded();
    expect(rows.map((r) => [r.name, r.sha256, r.functions])).to.deep.equal(
      byName(definitions).map((d) => [d.name, d.sha256, d.functions]),
    );
    expect(await applySqlDefinitions(first)).to.deep.equal([]);
    expect(await recorded()).to.deep.equal(rows);
  });

  it('applies a changed file once when two instances start at the same moment', async () => {
    await first('sql_definitions').where({ name: 'ledger/sql/ledger_move.sql' }).update({ sha256: 'changed' });
    const applied = await Promise.all([applySqlDefinitions(first), applySqlDefinitions(second)]);
    expect(applied.flat()).to.deep.equal(['ledger/sql/ledger_move.sql']);
    expect((await recorded()).find((r) => r.name === 'ledger/sql/ledger_move.sql')?.sha256).to.equal(
      definitions.find((d) => d.name === 'ledger/sql/ledger_move.sql')?.sha256,
    );
  });

  it('drops the old signatures of a changed file and the functions of a removed one', async () => {
    await first.raw('CREATE FUNCTION request_uuid(p_value int) RETURNS uuid LANGUAGE sql AS $$ SELECT NULL::uuid $$');
    await first.raw('CREATE FUNCTION gone_helper() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$');
    await first('sql_definitions').where({ name: 'kernel/sql/request_uuid.sql' }).update({ sha256: 'changed' });
    await first('sql_definitions').insert({ name: 'ledger/sql/gone_helper.sql', sha256: 'x', functions: ['gone_helper'] });
    expect(await applySqlDefinitions(first)).to.deep.equal(['kernel/sql/request_uuid.sql']);
    const live = await liveFunctions(first);
    expect(live.get('request_uuid')).to.equal(1);
    expect(live.has('gone_helper')).to.equal(false);
    expect(await first('sql_definitions').where({ name: 'ledger/sql/gone_helper.sql' })).to.deep.equal([]);
  });

  it('applies a file moved to another folder from its new path, once, and forgets the old path', async () => {
    // The record as a database applied before the idempotency files moved from the ledger to the kernel.
    const moved = 'kernel/sql/idempotency_begin.sql';
    const row = await first('sql_definitions').where({ name: moved }).first();
    await first('sql_definitions').where({ name: moved }).update({ name: 'ledger/sql/idempotency_begin.sql', sha256: 'old' });
    expect(await applySqlDefinitions(first)).to.deep.equal([moved]);
    expect((await liveFunctions(first)).get('idempotency_begin')).to.equal(1);
    expect(await first('sql_definitions').where({ name: 'ledger/sql/idempotency_begin.sql' })).to.deep.equal([]);
    expect((await first('sql_definitions').where({ name: moved }).first()).sha256).to.equal(row.sha256);
  });

  it('drops a function that no file defines, such as one left by a migration under an old name', async () => {
    await first.raw('CREATE FUNCTION ledger_uuid(p_value text) RETURNS uuid LANGUAGE sql AS $$ SELECT NULL::uuid $$');
    await first('sql_definitions').where({ name: 'kernel/sql/request_uuid.sql' }).update({ sha256: 'changed' });
    expect(await applySqlDefinitions(first)).to.deep.equal(['kernel/sql/request_uuid.sql']);
    expect((await liveFunctions(first)).has('ledger_uuid')).to.equal(false);
  });

  it('applies nothing of a start whose file fails, and names the file', async () => {
    const broken = parseDefinition('ledger/sql/ledger_move.sql', 'CREATE OR REPLACE FUNCTION ledger_move(p int) RETURNS int LANGUAGE sql AS $$ SELECT nope $$;');
    const others = definitions.filter((d) => d.name !== broken.name);
    const before = await recorded();
    let error: unknown;
    try {
      await applySqlDefinitions(first, [...others, broken]);
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/ledger\/sql\/ledger_move\.sql: .*nope/);
    expect(await recorded()).to.deep.equal(before);
    expect((await liveFunctions(first)).get('ledger_move')).to.equal(1);
    const { rows } = await first.raw("SELECT pg_get_function_identity_arguments('ledger_move'::regproc) AS args");
    expect(rows[0].args).to.equal('p_business uuid, p_type text, r jsonb');
  });
});
