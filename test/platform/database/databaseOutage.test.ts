/**
 * A database outage: while PostgreSQL is down every request that
 * needs it is answered 503 SERVICE_UNAVAILABLE with Retry-After (it used to be 500 with
 * a stack trace per request), `/ready` is 503, the log has one line for the outage
 * rather than one per request, and the service recovers without a restart once the
 * database is back. Runs on its own embedded PostgreSQL, stopped and started again on
 * the same port.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../../src/db/embedded.js';
import { startService, type RunningService } from '../../../src/server.js';
import { expectProblem } from '../../support/assertions.js';
import { get, post, request } from '../../support/client.js';
import { accessOf, databaseOperations, exampleRequest, SESSION_OPERATIONS, signatureHeaders } from '../../support/operations.js';
import { demoOwnerSession, sessionHeaders } from '../../support/portalUsers.js';
import { testConfig } from '../../support/service.js';

describe('database outage', function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-outage-'));
  const logFile = path.join(dataDir, 'service.log');
  let port: number;
  let database: EmbeddedDatabase;
  let service: RunningService;

  before(async () => {
    chmodSync(dataDir, 0o755);
    port = await freePort();
    database = await startEmbeddedPostgres(dataDir, { persistent: true, quiet: true, port });
    // No wait for the database (DB_FAILOVER_WAIT_MS=0): each request is answered 503 at once.
    service = await startService(testConfig({ logFile, dbFailoverWaitMs: 0 }), { database: database.url, quiet: true });
  });
  after(async () => {
    await service?.close();
    await database?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('503 with Retry-After while it is down, one log line for the outage, recovery without a restart', async () => {
    const baseUrl = service.url;
    const login = () => post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl });
    const token = (await login()).body.access_token;
    const platform = (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' }, { baseUrl })).body.access_token;
    expect((await get('/cl/v1/wallets', { token, baseUrl })).status).to.equal(200);
    const session = await demoOwnerSession(baseUrl);

    await database.stop();
    const reached = databaseOperations();
    expect(reached.length).to.be.greaterThan(25);
    for (const op of reached) {
      const { path, body } = exampleRequest(op);
      const ownSession = SESSION_OPERATIONS.has(op.operationId);
      const headers = { ...signatureHeaders(op, body), ...(ownSession ? sessionHeaders(session) : {}) };
      const bearer = ownSession ? undefined : accessOf(op.operationId) === 'business' ? token : platform;
      const res = await request(op.method, path, { token: bearer, body, headers, baseUrl });
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(Number(res.headers.get('retry-after')), op.operationId).to.be.greaterThan(0);
      expect(JSON.stringify(res.body)).not.to.match(/ECONNREFUSED|at .*\.ts|select /i);
    }
    expectProblem(await get('/ready', { baseUrl }), 503, 'SERVICE_UNAVAILABLE');
    expect((await get('/health', { baseUrl })).status, 'the process itself is alive').to.equal(200);

    database = await startEmbeddedPostgres(dataDir, { persistent: true, quiet: true, port });
    expect((await get('/cl/v1/wallets', { token, baseUrl })).status, 'recovered without a restart').to.equal(200);
    expect((await get('/ready', { baseUrl })).status).to.equal(200);

    // The end of the outage is logged once queries have succeeded for a second (src/db/unavailable.ts).
    const readLog = () => readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    for (let waited = 0; waited < 5_000 && !readLog().some((l) => l.msg === 'database reachable again'); waited += 100) await new Promise((r) => setTimeout(r, 100));
    const log = readLog();
    expect(log.filter((l) => l.msg.startsWith('database unavailable')), 'one line for the outage').to.have.length(1);
    expect(log.find((l) => l.msg === 'database reachable again').failed_requests).to.be.at.least(reached.length);
    expect(log.filter((l) => l.msg === 'database reachable again')).to.have.length(1);
    expect(log.filter((l) => l.msg === 'unexpected error'), 'no stack per request').to.have.length(0);
    expect(log.filter((l) => l.msg.startsWith('request log:')), "the request log's lost batches are the outage's line, not one warning each").to.have.length(0);
  });
});
