import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post, request, type ApiResponse } from '../support/client.js';
import { expectProblem, errorOf } from '../support/assertions.js';
import { credit, newWallet, platformToken, tokenFor, topup, uniq } from '../support/fixtures.js';
import { running } from '../support/service.js';
import { purgeAuditEvents } from '../../src/audit/index.js';

/** A business of its own, with its client's id (the actor of its requests) and a token. */
async function businessWithClient(): Promise<{ id: string; clientId: string; token: string }> {
  const res = await post('/cl/v1/businesses', { name: `Audited ${uniq()}` }, { token: await platformToken() });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const { client_id: clientId, client_secret: secret } = res.body.credentials;
  return { id: res.body.id, clientId, token: await tokenFor(clientId, secret) };
}

/** Every audit event of the business matching `query`, newest first, through the cursor. */
async function allEvents(token: string, query = ''): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | null = null;
  do {
    const res: ApiResponse = await get(`/audit-events?limit=2${query}${cursor ? `&cursor=${cursor}` : ''}`, { token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    events.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return events;
}

const USER_AGENT = 'audit-test/1.0';

describe('the audit log', function () {
  this.timeout(60_000);
  let business: { id: string; clientId: string; token: string };
  let restricted: { id: string; client_id: string };
  let transferId: string;
  const ids = { transfer: randomUUID(), replay: randomUUID(), failed: randomUUID(), createKey: randomUUID(), revokeKey: randomUUID(), refusedPost: randomUUID(), refusedGet: randomUUID(), refusedOdd: randomUUID(), read: randomUUID() };
  const as = (requestId: string) => ({ 'x-request-id': requestId, 'user-agent': USER_AGENT });

  before(async () => {
    business = await businessWithClient();
    const from = await newWallet(business.token);
    const to = await newWallet(business.token);
    await topup(business.token, '100.00');
    await credit(business.token, from.id, '100.00');
    const transfer = { source_wallet_id: from.id, destination_wallet_id: to.id, amount: '10.00' };
    const idempotencyKey = uniq();
    const sent = await post('/cl/v1/transfers', transfer, { token: business.token, idempotencyKey, headers: as(ids.transfer) });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    transferId = sent.body.id;
    const replay = await post('/cl/v1/transfers', transfer, { token: business.token, idempotencyKey, headers: as(ids.replay) });
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expectProblem(await post('/cl/v1/transfers', { ...transfer, amount: '1000.00' }, { token: business.token, headers: as(ids.failed) }), 422, 'INSUFFICIENT_FUNDS');

    const created = await post('/api-keys', { name: 'Wallet reader', permissions: ['wallets:read'] }, { token: business.token, headers: as(ids.createKey) });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    restricted = created.body;
    const readerToken = await tokenFor(created.body.client_id, created.body.client_secret);
    expectProblem(await post('/api-keys', { name: 'Escalation', role: 'owner' }, { token: readerToken, headers: as(ids.refusedPost) }), 403, 'FORBIDDEN');
    expectProblem(await get('/api-keys', { token: readerToken, headers: as(ids.refusedGet) }), 403, 'FORBIDDEN');
    // Refused before its path is validated: the target is kept in a form the documents allow.
    expectProblem(await request('DELETE', `/api-keys/${encodeURIComponent('ü'.repeat(150))}`, { token: readerToken, headers: as(ids.refusedOdd) }), 403, 'FORBIDDEN');
    expect((await get('/cl/v1/wallets', { token: readerToken, headers: as(ids.read) })).status).to.equal(200);
    expect((await request('DELETE', `/api-keys/${restricted.id}`, { token: business.token, headers: as(ids.revokeKey) })).status).to.equal(200);
  });

  it('records a transfer, its replay and a failed one with who, what, the result, where from and the request id', async () => {
    const events = await allEvents(business.token, '&operation_id=createTransfer');
    expect(events.map((e) => e.request_id)).to.deep.equal([ids.failed, ids.replay, ids.transfer]);
    const [failed, replay, transfer] = events;
    expect(transfer).to.deep.include({
      actor: { type: 'api_key', id: business.clientId },
      operation_id: 'createTransfer',
      method: 'POST',
      target_ids: [transferId],
      status: 201,
      problem_code: null,
      replayed: false,
      user_agent: USER_AGENT,
    });
    expect(transfer.ip_address).to.match(/127\.0\.0\.1|::1/);
    expect(replay).to.deep.include({ status: 201, replayed: true, target_ids: [transferId] });
    expect(failed).to.deep.include({ status: 422, problem_code: 'INSUFFICIENT_FUNDS', target_ids: [], replayed: false });
  });

  it('records key changes with the key as target, and the refusals of a restricted key, reads included; not reads that succeed', async () => {
    const keyEvents = await allEvents(business.token, `&target_id=${restricted.id}`);
    expect(keyEvents.map((e) => [e.operation_id, e.method, e.status, e.request_id])).to.deep.equal([
      ['revokeApiKey', 'DELETE', 200, ids.revokeKey],
      ['createApiKey', 'POST', 201, ids.createKey],
    ]);
    const refusals = (await allEvents(business.token, `&actor_id=${restricted.client_id}`)).filter((e) => e.operation_id !== 'createToken');
    expect(refusals.map((e) => [e.operation_id, e.method, e.status, e.problem_code, e.request_id])).to.deep.equal([
      ['revokeApiKey', 'DELETE', 403, 'FORBIDDEN', ids.refusedOdd],
      ['listApiKeys', 'GET', 403, 'FORBIDDEN', ids.refusedGet],
      ['createApiKey', 'POST', 403, 'FORBIDDEN', ids.refusedPost],
    ]);
    expect(refusals.every((e) => e.actor.type === 'api_key')).to.equal(true);
    expect(refusals[0].target_ids).to.deep.equal([encodeURIComponent('ü'.repeat(150)).slice(0, 200)]);
    const everything = await allEvents(business.token);
    expect(everything.map((e) => e.request_id)).not.to.include(ids.read);
  });

  it("records a key's token requests, granted and refused, under its business; an unknown client's under none", async () => {
    const key = await post('/api-keys', { name: 'Signing in', role: 'viewer' }, { token: business.token });
    expect(key.status, JSON.stringify(key.body)).to.equal(201);
    const ask = (secret: string, requestId: string) =>
      post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: key.body.client_id, client_secret: secret }, { headers: as(requestId) });
    const [granted, refused, unknown] = [randomUUID(), randomUUID(), randomUUID()];
    expect((await ask(key.body.client_secret, granted)).status).to.equal(200);
    expectProblem(await ask('not-the-secret', refused), 401, 'INVALID_CLIENT');
    const stranger = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: `nobody-${uniq()}`, client_secret: 'x' }, { headers: as(unknown) });
    expectProblem(stranger, 401, 'INVALID_CLIENT');
    const signIns = await allEvents(business.token, `&actor_id=${key.body.client_id}&operation_id=createToken`);
    expect(signIns.map((e) => [e.actor.type, e.method, e.status, e.problem_code, e.request_id, e.user_agent])).to.deep.equal([
      ['api_key', 'POST', 401, 'INVALID_CLIENT', refused, USER_AGENT],
      ['api_key', 'POST', 200, null, granted, USER_AGENT],
    ]);
    expect((await allEvents(business.token, '&operation_id=createToken')).map((e) => e.request_id)).not.to.include(unknown);
  });

  it('records each of many concurrent changes once, before each answer', async () => {
    const other = await businessWithClient();
    const requestIds = Array.from({ length: 30 }, () => randomUUID());
    const created = await Promise.all(requestIds.map((id) => post('/cl/v1/wallets', { name: `Concurrent ${uniq()}` }, { token: other.token, headers: { 'x-request-id': id } })));
    expect(created.map((r) => r.status)).to.deep.equal(requestIds.map(() => 201));
    const events = await allEvents(other.token, '&operation_id=createWallet');
    expect(events.map((e) => e.request_id).sort()).to.deep.equal([...requestIds].sort());
    const walletOf = new Map(created.map((r, i) => [requestIds[i], r.body.id]));
    for (const e of events) expect(e.target_ids).to.deep.equal([walletOf.get(e.request_id)]);
  });

  it("names what an answer without an `id` created by its `*_id` fields: a bulk payout's", async () => {
    const other = await businessWithClient();
    // An item that is not an amount is rejected on its own: the batch is made without a customer.
    const bulk = await post('/bulk-payouts', { items: [{ payout_amount: '1.005', customer_id: randomUUID() }] }, { token: other.token, headers: { 'idempotency-key': uniq() } });
    expect(bulk.status, JSON.stringify(bulk.body)).to.equal(200);
    const events = await allEvents(other.token, `&target_id=${bulk.body.bulk_payout_id}`);
    expect(events.map((e) => [e.operation_id, e.target_ids])).to.deep.equal([['createBulkPayout', [bulk.body.bulk_payout_id]]]);
  });

  it('pages newest first through a cursor and filters by time', async () => {
    const everything = await allEvents(business.token);
    const firstPage = await get('/audit-events?limit=100', { token: business.token });
    expect(everything.map((e) => e.id)).to.deep.equal(firstPage.body.data.map((e: { id: string }) => e.id));
    const times = everything.map((e) => e.created_at);
    expect(times).to.deep.equal([...times].sort().reverse());
    const transfer = everything.find((e) => e.request_id === ids.transfer);
    const since = await allEvents(business.token, `&created_from=${transfer.created_at}`);
    expect(since.map((e) => e.request_id)).to.include(ids.transfer).and.to.include(ids.revokeKey);
    expect(since.every((e) => e.created_at >= transfer.created_at)).to.equal(true);
    const before = await allEvents(business.token, `&created_to=${transfer.created_at}`);
    expect(before.map((e) => e.request_id)).not.to.include(ids.transfer);
    expect(before.length + since.length).to.equal(everything.length);
    expectProblem(await get('/audit-events?cursor=not-a-cursor', { token: business.token }), 400, 'INVALID_CURSOR');
  });

  it('exports the same events as CSV, header first', async () => {
    const res = await get(`/audit-events.csv?target_id=${restricted.id}`, { token: business.token });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (res.body as string).trim().split('\n');
    expect(lines[0]).to.equal('created_at,id,actor_type,actor_id,operation_id,method,target_ids,status,problem_code,replayed,request_id,ip_address,user_agent');
    expect(lines).to.have.length(3);
    expect(lines[1]).to.include(`,api_key,${business.clientId},revokeApiKey,DELETE,${restricted.id},200,,false,${ids.revokeKey},`);
    expect(lines[2]).to.include(`,createApiKey,POST,${restricted.id},201,,false,${ids.createKey},`);
  });

  it('shows another business none of them', async () => {
    const other = await businessWithClient();
    for (const query of ['', `&target_id=${transferId}`, `&actor_id=${business.clientId}`]) {
      expect((await allEvents(other.token, query)).map((e) => e.request_id)).not.to.include.members([ids.transfer]);
    }
    const mine = await allEvents(other.token);
    expect(mine.filter((e) => Object.values(ids).includes(e.request_id))).to.deep.equal([]);
    const csv = await get(`/audit-events.csv?actor_id=${business.clientId}`, { token: other.token });
    expect((csv.body as string).trim().split('\n')).to.have.length(1);
  });

  it('is append-only for the service’s own connection: an update and a delete fail and change nothing', async () => {
    const { db } = running();
    const row = await db('audit_events').where({ business_id: business.id, request_id: ids.transfer }).first();
    expect(row).to.not.equal(undefined);
    const update = await errorOf(db('audit_events').where({ business_id: business.id, id: row.id }).update({ status: 200, actor_id: 'someone-else' }));
    expect(String(update)).to.match(/append-only/);
    const remove = await errorOf(db('audit_events').where({ business_id: business.id, id: row.id }).del());
    expect(String(remove)).to.match(/append-only/);
    // Naming a retention of its own does not open a fresh row: the purge's floor is 30 days.
    const early = await errorOf(
      db.transaction(async (trx) => {
        await trx.raw("SELECT set_config('audit.retention_days', '0', true)");
        await trx('audit_events').where({ business_id: business.id, id: row.id }).del();
      }),
    );
    expect(String(early)).to.match(/append-only/);
    await purgeAuditEvents(db, 30);
    expect(await db('audit_events').where({ business_id: business.id, id: row.id }).first()).to.deep.equal(row);
  });
});
