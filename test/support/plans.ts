/**
 * The plans of the statements a function of the service sends, as PostgreSQL would run them:
 * `plansOf(db, table, run, off)` records every statement `run` sends through `db` that reads
 * `table`, then explains each (as sent, with its bindings) on a connection of its own to the
 * running service's database with the planner settings `off` turned off (the ways out a
 * test prices away: sequential scans, bitmap scans, sorts), in a transaction rolled back
 * afterwards, after `prepare` (rows a plan is to be chosen among). `nodes(plan)` is a plan's
 * nodes.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import pg from 'pg';
import { running } from './service.js';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Scan Direction'?: string;
  Plans?: PlanNode[];
}

/** `plan` and every node below it. */
export function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The plan of each statement `run` sends that reads `table`, with the planner settings `off` off. */
export async function plansOf(
  db: Knex,
  table: string,
  run: (db: Knex) => Promise<unknown>,
  off: string[],
  prepare?: (client: pg.Client) => Promise<void>,
): Promise<PlanNode[]> {
  const sent: { sql: string; bindings: readonly unknown[] }[] = [];
  const listen = (q: { sql: string; bindings?: readonly unknown[] }) => sent.push({ sql: q.sql, bindings: q.bindings ?? [] });
  db.on('query', listen);
  try {
    await run(db);
  } finally {
    db.off('query', listen);
  }
  const reading = sent.filter((q) => new RegExp(`from "${table}"|\\(select \\* from "${table}"`, 'i').test(q.sql));
  expect(reading, `statements reading ${table}`).to.not.be.empty;
  const client = new pg.Client({ connectionString: running().databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await prepare?.(client);
    for (const setting of off) await client.query(`SET LOCAL ${setting} = off`);
    const plans: PlanNode[] = [];
    for (const q of reading) {
      const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${q.sql}`, q.bindings as unknown[]);
      plans.push(rows[0]['QUERY PLAN'][0].Plan);
    }
    return plans;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
}
