/**
 * docs/schema.md is the live schema (src/db/schemaDescription.ts reads it,
 * src/db/schemaMarkdown.ts renders it, `npm run db:schema` writes it): the suite's
 * database, migrated by this repository's migrations and SQL definitions, is described
 * again and compared with the committed file. A migration or `.sql` change
 * without `npm run db:schema` fails here, naming the first line that differs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { describeSchema } from '../../../src/db/schemaDescription.js';
import { schemaDrift, schemaMarkdown, SCHEMA_DOCUMENT } from '../../../src/db/schemaMarkdown.js';
import { running } from '../../support/service.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('schema description: docs/schema.md', () => {
  it('matches the catalog of the migrated database', async () => {
    const live = schemaMarkdown(await describeSchema(running().db));
    const drift = schemaDrift(readFileSync(path.join(ROOT, SCHEMA_DOCUMENT), 'utf8'), live);
    if (drift) expect.fail(`${SCHEMA_DOCUMENT} does not match the migrated database: run npm run db:schema (and commit it)\n${drift}`);
  });

  it('describes what a reader looks for: columns in order, constraints, indexes, triggers with their file, functions with theirs', async () => {
    const description = await describeSchema(running().db);
    const table = (name: string) => description.tables.find((t) => t.name === name)!;
    expect(table('bulk_payouts').columns.map((c) => c.name).slice(-3)).to.deep.equal(['processing_count', 'completed_count', 'failed_count']);
    expect(table('bulk_payouts').checks.map((c) => c.name)).to.include('bulk_payouts_counts_range');
    expect(table('rate_limits').unlogged).to.equal(true);
    expect(table('idempotency_keys').primaryKey).to.deep.equal({ name: 'idempotency_keys_pkey', definition: 'PRIMARY KEY (scope, key, business_id)' });
    expect(table('accounts').unique.map((u) => u.name)).to.include('accounts_one_business_account_per_kind');
    expect(table('ledger_entries').triggers.map((t) => [t.name, t.file])).to.deep.equal([
      ['ledger_entries_balanced', 'ledger/sql/ledger_transaction_balanced.sql'],
      ['ledger_entries_no_update', 'ledger/sql/ledger_entries_immutable.sql'],
    ]);
    expect(description.tables.map((t) => t.name)).to.not.include.members(['knex_migrations', 'knex_migrations_lock']);
    expect(description.sequences.find((s) => s.name === 'card_token_seq')?.start).to.equal('1000000001');
    const move = description.functions.find((f) => f.name === 'public.ledger_move');
    expect(move).to.include({ arguments: 'p_business uuid, p_type text, r jsonb', returns: 'jsonb', language: 'plpgsql', file: 'ledger/sql/ledger_move.sql' });
  });

  it('reports where a description drifted', () => {
    expect(schemaDrift('# a\n### t\nx', '# a\n### t\nx')).to.equal(null);
    expect(schemaDrift('# a\n### t\nx', '# a\n### t\ny')).to.equal('1 line(s) differ; the first is line 3, under "### t":\n  committed: x\n  live:      y');
  });
});
