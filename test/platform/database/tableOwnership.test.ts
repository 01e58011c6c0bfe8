/**
 * Every table has one owner room, and the rows follow the floors (src/db/tableOwners.ts): a
 * room writes only the tables it owns, and reads only its own and those of lower floors.
 *
 * - Every table of the migrated schema (the current schema: pg-boss keeps its tables in a
 *   schema of its own) has an owner, and every owner named is of a live table; every room of
 *   src/ has a floor, and no room imports from a higher floor than its own.
 * - The scanner (test/support/tableTouches.ts) finds the tables each room touches in
 *   `src/**\/*.ts` and `src/**\/sql/*.sql`: Knex builders and joins, raw SQL in strings, the
 *   PL/pgSQL functions. The migrations (src/db/migrations/) are not scanned: they are the
 *   schema's history, whose DDL and one-off backfills touch every room's tables by design, run
 *   by the migrator, never by a room's code. src/'s top-level files (src/server.ts …) are the
 *   service's assembly, no room, and are skipped too.
 * - A touch the rule does not allow fails, with its file and line: go through the owner's
 *   functions instead (a face, or a PL/pgSQL function of the owner's room), or move the
 *   table's owner.
 * - A fixture shows the check failing on a deliberate sideways write.
 */
import path from 'node:path';
import { expect } from 'chai';
import { ROOM_FLOORS, TABLE_OWNERS } from '../../../src/db/tableOwners.js';
import { roomOf, scanTouches, serviceSources, type ScannedFile, type TableTouch } from '../../support/tableTouches.js';
import { running } from '../../support/service.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The rooms of src/ with their floors, as a lookup that also answers for a folder that is no room. */
const FLOORS: Readonly<Record<string, number | undefined>> = ROOM_FLOORS;

/** Whether the ownership rule allows `touch`: a write of the room's own table, a read of its own or a lower floor's. */
function allowed(touch: Pick<TableTouch, 'room' | 'table' | 'kind'>): boolean {
  const owner = TABLE_OWNERS[touch.table];
  if (owner === touch.room) return true;
  const reader = FLOORS[touch.room];
  return touch.kind === 'read' && reader !== undefined && ROOM_FLOORS[owner] < reader;
}

/** A touch as the scanner's expectations name it. */
const keyOf = (t: Pick<TableTouch, 'room' | 'table' | 'kind' | 'file'>): string => `${t.room} ${t.kind}s ${t.table} in ${t.file}`;

/** A touch as a report names it: where, what, and whose table. */
function described(t: TableTouch): string {
  const owner = TABLE_OWNERS[t.table];
  return `${t.file}:${t.line} ${t.room} (floor ${FLOORS[t.room] ?? '?'}) ${t.kind}s ${t.table} of ${owner} (floor ${ROOM_FLOORS[owner]}): ${t.evidence}`;
}

/** The touches of `files` that the rule does not allow. */
function sidewaysTouches(files: readonly ScannedFile[]): TableTouch[] {
  return scanTouches(files, new Set(Object.keys(TABLE_OWNERS))).filter((t) => !allowed(t));
}

/** The service's sources as the check scans them: src/ without the migrations. */
const sources = (): ScannedFile[] => serviceSources(ROOT, (file) => file.startsWith('src/db/migrations/'));

describe('Table ownership: one owner per table, rows follow the floors', () => {
  it('every table of the migrated schema has an owner, and every owner named is of a live table', async () => {
    const { rows } = await running().db.raw('SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename');
    const live: string[] = rows.map((r: { tablename: string }) => r.tablename);
    expect(live, 'the migrator’s own tables are in the schema').to.include.members(['knex_migrations', 'knex_migrations_lock']);
    expect(live.filter((t) => !(t in TABLE_OWNERS)), 'tables without an owner in src/db/tableOwners.ts').to.deep.equal([]);
    expect(Object.keys(TABLE_OWNERS).filter((t) => !live.includes(t)), 'owners of tables the schema does not have').to.deep.equal([]);
    for (const [table, owner] of Object.entries(TABLE_OWNERS)) expect(FLOORS[owner], `the floor of ${table}'s owner ${owner}`).to.be.a('number');
  });

  it('every room of src/ has a floor, and no room imports from a room above it', () => {
    const files = serviceSources(ROOT).filter((f) => f.path.endsWith('.ts'));
    const rooms = new Set(files.map((f) => roomOf(f.path)).filter((r): r is string => r !== undefined));
    expect([...rooms].filter((r) => FLOORS[r] === undefined), 'rooms without a floor in ROOM_FLOORS').to.deep.equal([]);
    const upward: string[] = [];
    for (const f of files) {
      const from = roomOf(f.path);
      if (!from) continue;
      for (const m of f.text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm)) {
        const to = roomOf(path.posix.normalize(path.posix.join(path.posix.dirname(f.path), m[1])));
        if (to && to !== from && (FLOORS[to] ?? -1) > FLOORS[from]!) upward.push(`${f.path}: ${from} (floor ${FLOORS[from]}) imports ${m[1]} of ${to} (floor ${FLOORS[to]})`);
      }
    }
    expect(upward, 'imports from a higher floor').to.deep.equal([]);
  });

  it('no room touches a table sideways: each writes only its own tables and reads its own or a lower floor’s', () => {
    const files = sources();
    const found = scanTouches(files, new Set(Object.keys(TABLE_OWNERS)));
    // The scanner sees each kind of touch at all (a broken scanner would pass the rest).
    for (const expected of [
      { room: 'cards', table: 'cards', kind: 'write', file: 'src/cards/cards.ts' }, // a Knex builder's insert
      { room: 'ledger', table: 'ledger_entries', kind: 'write', file: 'src/ledger/sql/ledger_post.sql' }, // INSERT INTO in a .sql file
      { room: 'events', table: 'outbox_pending', kind: 'write', file: 'src/events/outbox.ts' }, // DELETE FROM in a TS string
      { room: 'payouts', table: 'accounts', kind: 'read', file: 'src/payouts/rail.ts' }, // a Knex join
      { room: 'http', table: 'rate_limits', kind: 'write', file: 'src/http/rateLimit.ts' }, // a library's tableName
    ] as const) {
      expect(found.some((t) => keyOf(t) === keyOf(expected)), `the scanner finds: ${keyOf(expected)}`).to.equal(true);
    }
    expect(
      found.filter((t) => !allowed(t)).map(described),
      'sideways touches (write only your own tables; read your own or a lower floor’s; see src/db/tableOwners.ts): ' +
        'go through the owner’s functions instead, or move the table’s owner',
    ).to.deep.equal([]);
  });

  it('reports a deliberate sideways write, in Knex and in PL/pgSQL, with its file and line', () => {
    const fixture: ScannedFile[] = [
      {
        path: 'src/cards/fake.ts',
        text: [
          "import type { Knex } from 'knex';",
          '// trx(\'payouts\').insert({}) in a comment is no touch',
          'export async function fake(trx: Knex): Promise<void> {',
          "  await trx('payouts').insert({ id: 'x', business_id: 'y' });",
          '}',
        ].join('\n'),
      },
      {
        path: 'src/payouts/sql/fake.sql',
        text: [
          '-- UPDATE cards SET status = 1 in a comment is no touch',
          'CREATE OR REPLACE FUNCTION fake(p_business uuid) RETURNS void LANGUAGE sql AS $$',
          "  UPDATE customers SET status = 'INACTIVE' WHERE business_id = p_business",
          '$$;',
        ].join('\n'),
      },
    ];
    const sideways = sidewaysTouches(fixture);
    expect(sideways.map((t) => `${t.file}:${t.line} ${t.room} ${t.kind}s ${t.table}`)).to.deep.equal([
      'src/cards/fake.ts:4 cards writes payouts',
      'src/payouts/sql/fake.sql:3 payouts writes customers',
    ]);
  });

  it('finds a touch in each form the service writes one: SQL statements, row types, FROM lists, triggers, Knex chains', () => {
    const fixture: ScannedFile[] = [
      {
        path: 'src/cards/sql/fake.sql',
        text: [
          'CREATE OR REPLACE FUNCTION fake(p payouts, q customers%ROWTYPE) RETURNS SETOF accounts LANGUAGE plpgsql AS $$',
          'DECLARE',
          '  r transactions;',
          'BEGIN',
          '  SELECT 1 FROM unnest(ARRAY[1]) AS u(id), labels l, (SELECT 1) s, ledger_entries e;',
          '  delete from card_pans using card_tokens t where true;',
          '  MERGE INTO cards c USING bulk_payouts b ON true WHEN MATCHED THEN DO NOTHING;',
          'END $$;',
          'CREATE TRIGGER fake AFTER INSERT ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION fake();',
        ].join('\n'),
      },
      {
        path: 'src/cards/fake.ts',
        text: [
          'export async function fake(db: any): Promise<void> {',
          "  await db.insert({ id: 1 }).into('payouts');",
          "  let q = db('customers').where({ id: 1 });",
          '  q = q.where({ b: 2 });',
          "  await q.update({ status: 'X' });",
          "  await db.from('labels').select('id');",
          "  await db('accounts').where('id', 1).first();",
          "  await db.raw('select id from transactions where id = ?', [1]);",
          '}',
        ].join('\n'),
      },
    ];
    const touches = scanTouches(fixture, new Set(Object.keys(TABLE_OWNERS)));
    expect(touches.map((t) => `${t.file.slice(10)}:${t.line} ${t.kind}s ${t.table}`)).to.deep.equal([
      'sql/fake.sql:1 reads payouts',
      'sql/fake.sql:1 reads customers',
      'sql/fake.sql:1 reads accounts',
      'sql/fake.sql:3 reads transactions',
      'sql/fake.sql:5 reads labels',
      'sql/fake.sql:5 reads ledger_entries',
      'sql/fake.sql:6 writes card_pans',
      'sql/fake.sql:6 reads card_tokens',
      'sql/fake.sql:7 writes cards',
      'sql/fake.sql:7 reads bulk_payouts',
      'sql/fake.sql:9 writes webhook_endpoints',
      'fake.ts:2 writes payouts',
      'fake.ts:3 writes customers',
      'fake.ts:6 reads labels',
      'fake.ts:7 reads accounts',
      'fake.ts:8 reads transactions',
    ]);
  });

  it('takes no CTE, alias, other schema, column or comment for a table, and allows reads from below', () => {
    const fixture: ScannedFile[] = [
      {
        path: 'src/cards/fake.ts',
        text: [
          'export async function fake(db: any): Promise<void> {',
          '  /* db(\'customers\').update({}) */',
          '  await db.raw(`WITH customers AS (SELECT 1 AS id) SELECT c.id FROM customers c -- FROM payouts',
          '    JOIN accounts a ON a.id = c.id`);',
          "  await db.raw('SELECT 1 FROM pgboss.settings s, sandbox_clocks k');",
          "  await db('cards as k').join('transactions as t', 'k.id', 't.id').where('payouts', 1).select('customers');",
          '}',
        ].join('\n'),
      },
    ];
    const touches = scanTouches(fixture, new Set(Object.keys(TABLE_OWNERS)));
    expect(touches.map((t) => `${t.line} ${t.kind}s ${t.table}`)).to.deep.equal(['4 reads accounts', '5 reads sandbox_clocks', '6 reads cards', '6 reads transactions']);
    expect(touches.filter((t) => !allowed(t)), 'the ledger and the kernel are below the cards: reading them is allowed').to.deep.equal([]);
  });
});
