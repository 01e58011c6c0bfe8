/**
 * Two service processes (src/main.ts, as `npm start` runs it) on one PostgreSQL that
 * this test owns, so that it may kill it.
 *
 * 1. Both start at the same moment on the empty database: migrations, pg-boss's schema
 *    and the sandbox demo data are made once, and both instances come up healthy.
 * 2. PostgreSQL is killed with SIGKILL while both serve a load of funds (each with its
 *    own Idempotency-Key: one ledger statement) and wallet renames (a transaction of
 *    several statements, whose ROLLBACK meets the broken connection), and started again
 *    a few seconds later on the same data and port. Both processes stay up; every request is answered 201 or, while the database
 *    is gone, 503 SERVICE_UNAVAILABLE (never another 5xx, never a dropped connection);
 *    each instance recovers by itself; each logs the outage as one line and its end as
 *    another. Afterwards every acknowledged fund is in the ledger, and sending each
 *    refused request again with its key makes the total exactly one fund per key.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import knex, { type Knex } from 'knex';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../../src/db/embedded.js';
import { expectProblem } from '../../support/assertions.js';
import { get, post, request } from '../../support/client.js';
import { killServiceProcess, startServiceProcesses, type ServiceProcess } from '../../support/property/processes.js';

/** Workers sending funds, spread over both instances. */
const WORKERS = 8;
/** How long PostgreSQL stays dead before it is started again. */
const DOWN_MS = 3_000;

interface Sent {
  /** A fund (with `key`), or a rename of `wallet`. */
  kind: 'fund' | 'rename';
  key: string;
  wallet: string;
  instance: number;
  /** HTTP status, or 0 when the connection failed. */
  status: number;
  at: number;
  transactionId?: string;
}

/** The JSON lines of a log file. */
function logLines(file: string): { msg: string; [field: string]: unknown }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Waits until `condition()` holds (polled every 50 ms); throws after `ms`. */
async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('two instances and a PostgreSQL that crashes', function () {
  this.timeout(240_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'wallet-crash-'));
  const logFiles = [path.join(dir, 'instance-0.log'), path.join(dir, 'instance-1.log')];
  let port: number;
  let database: EmbeddedDatabase | undefined;
  let db: Knex | undefined;
  const services: ServiceProcess[] = [];

  before(async () => {
    chmodSync(dir, 0o755); // PostgreSQL runs as `postgres` when we are root
    port = await freePort();
    database = await startEmbeddedPostgres(dir, { persistent: true, quiet: true, port });
    db = knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 }, log: { warn() {}, error() {}, deprecate() {}, debug() {} } });
  });

  after(async () => {
    await Promise.all(services.map((s) => killServiceProcess(s)));
    await db?.destroy();
    await database?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('both instances started at the same moment on an empty database come up healthy', async () => {
    const { rows } = await db!.raw("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema IN ('public', 'pgboss')");
    expect(rows[0].n, 'the database is empty').to.equal(0);
    services.push(...(await startServiceProcesses(database!.url, logFiles.map((file) => ({ LOG_FILE: file })))));
    for (const service of services) {
      expect((await get('/ready', { baseUrl: service.url })).status).to.equal(200);
      const token = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl: service.url });
      expect(token.status).to.equal(200);
    }
    expect(Number((await db!('api_clients').where({ client_id: 'demo-business' }).count<{ count: string }[]>('* as count'))[0].count), 'one demo business').to.equal(1);
    for (const file of logFiles) expect(logLines(file).filter((l) => (l.level as number) >= 50), file).to.deep.equal([]);
  });

  it('answers 503 while PostgreSQL is killed, recovers by itself, and loses no acknowledged fund', async () => {
    expect(services, 'the instances of the test before').to.have.length(2);
    const urls = services.map((s) => s.url);
    const token = (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl: urls[0] })).body.access_token;
    const wallets: string[] = [];
    for (let i = 0; i < 6; i++) wallets.push((await post('/cl/v1/wallets', { name: `crash ${i}` }, { token, baseUrl: urls[i % 2] })).body.id);
    expect((await post('/cl/v1/testhelpers/topups', { amount: '1000000.00' }, { token, baseUrl: urls[0] })).status).to.equal(201);

    const sent: Sent[] = [];
    let stop = false;
    const send = async (kind: Sent['kind'], instance: number, wallet: string, key: string): Promise<Sent> => {
      const record: Sent = { kind, key, wallet, instance, status: 0, at: 0 };
      try {
        const res =
          kind === 'fund'
            ? await post('/cl/v1/funds', { wallet_id: wallet, amount: '1.00' }, { token, baseUrl: urls[instance], idempotencyKey: key })
            : await request('PATCH', `/cl/v1/wallets/${wallet}`, { body: { name: `renamed ${key}` }, token, baseUrl: urls[instance] });
        record.status = res.status;
        if (res.status === 201) record.transactionId = res.body.id;
        else if (res.status !== 200) expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      } catch (err) {
        if (!(err instanceof TypeError)) throw err; // fetch's "fetch failed": the connection, not the contract
      }
      record.at = Date.now();
      return record;
    };
    const worker = async (n: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const record = await send(i % 3 === 2 ? 'rename' : 'fund', (n + i) % 2, wallets[(n * 7 + i) % wallets.length], randomUUID());
        sent.push(record);
        if (record.status >= 300 || record.status === 0) await new Promise((r) => setTimeout(r, 25));
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, n) => worker(n)));
    let postgres: { pid: number } | undefined;
    let killedAt = 0;
    let restartedAt = 0;
    try {
      await new Promise((r) => setTimeout(r, 2_000));
      postgres = { pid: Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]) };
      // Read before the kill: the instances (other processes) may log the outage within the
      // same millisecond, before this process, sharing two busy cores, runs again.
      killedAt = Date.now();
      process.kill(postgres.pid, 'SIGKILL');
      await until(() => [0, 1].every((i) => sent.some((s) => s.instance === i && s.at > killedAt && s.status === 503)), 15_000, 'a 503 from each instance');
      await new Promise((r) => setTimeout(r, Math.max(0, killedAt + DOWN_MS - Date.now())));
      database = await startEmbeddedPostgres(dir, { persistent: true, quiet: true, port });
      restartedAt = Date.now();
      await until(() => [0, 1].every((i) => sent.some((s) => s.instance === i && s.at > restartedAt && s.status < 300 && s.status > 0)), 30_000, 'a 201 from each instance after the restart');
      await new Promise((r) => setTimeout(r, 2_000));
    } finally {
      stop = true;
      await load;
    }

    const firstRefusal = [0, 1].map((i) => Math.min(...sent.filter((s) => s.instance === i && s.at > killedAt && s.status === 503).map((s) => s.at)) - killedAt);
    const recovery = [0, 1].map((i) => Math.min(...sent.filter((s) => s.instance === i && s.at > restartedAt && s.status > 0 && s.status < 300).map((s) => s.at)) - restartedAt);
    const statuses = new Map<number, number>();
    for (const s of sent) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
    console.log(
      `      ${sent.length} requests (${sent.filter((r) => r.kind === 'fund').length} funds, the rest wallet renames): ${[...statuses].map(([status, n]) => `${n} × ${status || 'connection failed'}`).join(', ')}; ` +
        `first 503 ${firstRefusal.map((ms) => `${ms} ms`).join(' and ')} after the kill; PostgreSQL down ${restartedAt - killedAt} ms; first success after its restart: ${recovery.map((ms) => `${ms} ms`).join(' and ')}`,
    );
    expect([...statuses.keys()].filter((status) => ![200, 201, 503].includes(status)), 'only 200, 201 and 503').to.deep.equal([]);
    expect(statuses.get(503), 'requests refused during the outage').to.be.above(0);
    for (const ms of recovery) expect(ms).to.be.below(30_000);
    for (const service of services) {
      expect(service.child.exitCode, service.output()).to.equal(null);
      expect((await get('/health', { baseUrl: service.url })).status).to.equal(200);
    }

    // Nothing acknowledged is lost; each refused request, sent again with its key, makes one fund.
    const acknowledged = sent.filter((s) => s.status === 201).map((s) => s.transactionId!);
    const found = await db!('transactions').whereIn('id', acknowledged).count<{ count: string }[]>('* as count');
    expect(Number(found[0].count), 'every acknowledged fund is in the ledger').to.equal(acknowledged.length);
    const funds = sent.filter((r) => r.kind === 'fund');
    for (const s of funds.filter((r) => r.status !== 201)) {
      const again = await send('fund', s.instance, s.wallet, s.key);
      expect(again.status, `key ${s.key}`).to.equal(201);
    }
    const balances = await db!('accounts').whereIn('id', wallets).sum<{ sum: string }[]>('balance as sum');
    expect(Number(balances[0].sum), 'one fund of 1.00 per key').to.equal(funds.length);

    for (const file of logFiles) {
      const lines = logLines(file).filter((l) => l.time && Date.parse(l.time as string) >= killedAt);
      const outage = lines.filter((l) => l.msg.startsWith('database') || l.msg.startsWith('transaction'));
      console.log(`      ${path.basename(file)}: ${outage.map((l) => `${l.msg.split(':')[0]} at ${Date.parse(l.time as string) - killedAt} ms`).join(', ')} (ms after the kill)`);
      expect(lines.filter((l) => l.msg.startsWith('database unavailable')), `${file}: one line for the outage`).to.have.length(1);
      expect(lines.filter((l) => l.msg === 'database reachable again'), `${file}: one line for its end`).to.have.length(1);
      expect(lines.filter((l) => l.msg === 'unexpected error' || l.msg.startsWith('unhandled')), file).to.deep.equal([]);
    }
  });
});
