/**
 * Statements run inside PostgreSQL functions, as the tests see them: `withNestedPlans` opens
 * a connection of its own to the running service's database, begins a transaction, makes
 * auto_explain report the plan of every statement, nested ones included, to that client as a
 * notice (with `settings`, more `SET LOCAL`s), runs `run` on it, then commits (`commit`) or
 * rolls back. Returns what `run` returned and the plans' texts, in the order they ran.
 */
import pg from 'pg';
import { running } from './service.js';

export async function withNestedPlans<T>(
  run: (client: pg.Client) => Promise<T>,
  options: { commit?: boolean; settings?: string[] } = {},
): Promise<{ result: T; plans: string[] }> {
  const client = new pg.Client({ connectionString: running().databaseUrl });
  const plans: string[] = [];
  client.on('notice', (n) => plans.push(n.message ?? ''));
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query("LOAD 'auto_explain'");
    for (const set of ['auto_explain.log_min_duration = 0', 'auto_explain.log_nested_statements = on', "auto_explain.log_level = 'notice'", ...(options.settings ?? [])]) {
      await client.query(`SET LOCAL ${set}`);
    }
    const result = await run(client);
    if (options.commit) await client.query('COMMIT');
    return { result, plans };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
}
