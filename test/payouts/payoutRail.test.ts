/**
 * The payout rail in production mode (SANDBOX=false, PAYOUT_RAIL_URL): each payout is
 * submitted to a bank connector (here a local fake that records what it receives),
 * signed and keyed by the payout id, retried when the connector does not take it, and
 * stays PROCESSING until the connector's signed callback completes it (the money reaches
 * the wallet) or fails it (the money returns to the payout account); unsigned, wrongly
 * signed, expired and replayed callbacks change nothing. The service refuses to start
 * in production without a rail. On a database of its own: a sandbox instance prepares
 * the business (its helpers are off in production) and stops; then only the production
 * instance processes the database's payouts.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { verifyCallbackSignature } from '../../src/providers/signatures.js';
import type { RunningService } from '../../src/server.js';
import { expectProblem, expectValidation } from '../support/assertions.js';
import { get, post, type ApiResponse } from '../support/client.js';
import { assertLedgerConsistent } from '../support/ledgerInvariants.js';
import { signatureHeaders } from '../support/operations.js';
import { activeCustomer } from '../support/customers.js';
import { running, startExtraService, TEST_CALLBACK_SECRETS } from '../support/service.js';
import { startReceiver, type Receiver } from '../support/webhooks.js';

const RAIL_SECRET = Buffer.from(TEST_CALLBACK_SECRETS.PAYOUT_RAIL);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const newEventId = () => `rail_${randomUUID().replaceAll('-', '')}`;

describe('payout rail (SANDBOX=false)', function () {
  this.timeout(120_000);
  const database = `wallet_rail_${randomUUID().slice(0, 8)}`;
  let production: RunningService;
  let rail: Receiver;
  /** Statuses the fake rail answers, per payout `external_reference`, in turn (then 202). */
  const answers = new Map<string, number[]>();
  let token: string;
  let customer: any;

  before(async () => {
    await running().db.raw(`CREATE DATABASE ${database}`);
    const sandbox = await startExtraService({}, database);
    try {
      const login = await post('/auth/token', { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' }, { baseUrl: sandbox.url });
      token = login.body.access_token;
      customer = await activeCustomer({ token, baseUrl: sandbox.url });
      expect((await post('/testhelpers/payout-account/topups', { amount: '1000.00' }, { token, baseUrl: sandbox.url })).status).to.equal(201);
    } finally {
      await sandbox.close();
    }
    rail = await startReceiver((r) => ({ status: answers.get(r.json.external_reference)?.shift() ?? 202 }));
    production = await startExtraService({ sandbox: false, payoutRailUrl: rail.url }, database);
  });
  after(async () => {
    await production?.close();
    await rail?.close();
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  const opts = () => ({ token, baseUrl: production.url });
  const pay = async (amount: string, reference = `rail-${amount}`): Promise<string> => {
    const res = await post('/payouts/', { payout_amount: amount, payout_purpose: 'Salary', external_reference: reference, customer_id: customer.id }, {
      ...opts(),
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.payout_id;
  };
  const payoutOf = async (id: string) => (await get(`/payouts/${id}`, opts())).body;
  const submissionsOf = (id: string) => rail.received.filter((r) => r.json.payout_id === id);
  /** Waits until the rail received `count` submissions of payout `id`. */
  async function submitted(id: string, count = 1, ms = 20_000) {
    const until = Date.now() + ms;
    while (submissionsOf(id).length < count) {
      if (Date.now() > until) throw new Error(`the rail got ${submissionsOf(id).length} of ${count} submissions of ${id}`);
      await sleep(50);
    }
    return submissionsOf(id);
  }
  const eventCodes = async (id: string) =>
    ((await get('/events?limit=100', opts())).body.data as { code: string; data: { payout_id?: string } }[])
      .filter((e) => e.data.payout_id === id)
      .map((e) => e.code)
      .reverse();
  const walletBalance = async () => (await get(`/cl/v1/wallets/${customer.wallet_id}/balance`, opts())).body.balance;
  const payoutAccount = async () => (await get('/business-account/balance', opts())).body.payout_account.balance;
  /** Sends the rail's callback, signed with the rail's secret (or as `sign` says). */
  const callback = (body: Record<string, unknown>, sign: { timestamp?: number; signature?: string | null } = {}): Promise<ApiResponse> => {
    const headers =
      sign.signature === null ? {} : sign.signature !== undefined ? { 'X-Provider-Signature': sign.signature } : signatureHeaders({ signedBy: 'PAYOUT_RAIL' }, body, sign.timestamp);
    return post('/callbacks/payout-rail', body, { headers, baseUrl: production.url });
  };
  /** The connector's callback for payout `payoutId`, echoing the business its submission named (when there was one). */
  const result = (payoutId: string, outcome: 'COMPLETED' | 'FAILED', more: Record<string, unknown> = {}) => ({
    event_id: newEventId(),
    payout_id: payoutId,
    ...(submissionsOf(payoutId)[0] ? { business_id: submissionsOf(payoutId)[0].json.business_id } : {}),
    outcome,
    ...(outcome === 'FAILED' ? { failure_code: 'REJECTED_BY_BANK' } : {}),
    occurred_at: new Date().toISOString(),
    ...more,
  });

  it('refuses to start without a rail (or without its secret) when SANDBOX=false', async () => {
    /** Why starting with `overrides` failed (the test fails if it started). */
    const refusal = (overrides: Record<string, unknown>): Promise<Error> =>
      startExtraService(overrides).then(
        async (s) => {
          await s.close();
          throw new Error(`started with ${JSON.stringify(overrides)}`);
        },
        (err: Error) => err,
      );
    expect((await refusal({ sandbox: false, payoutRailUrl: undefined })).message).to.match(/PAYOUT_RAIL_URL/);
    expect((await refusal({ sandbox: false, payoutRailUrl: rail.url, payoutRailCallbackSecret: undefined })).message).to.match(/PAYOUT_RAIL_CALLBACK_SECRET/);
    const env = { SANDBOX: 'false', CARD_DATA_KEY: 'k'.repeat(32), CARD_FINGERPRINT_KEY: 'f'.repeat(32), WEBHOOK_SECRET_KEY: 'w'.repeat(32), IDEMPOTENCY_REPLAY_KEY: 'r'.repeat(32), TOTP_SECRET_KEY: 't'.repeat(32) };
    expect(() => loadConfig(env)).to.throw(/PAYOUT_RAIL_URL/);
    expect(() => loadConfig({ ...env, PAYOUT_RAIL_URL: 'ftp://rail.example' , PAYOUT_RAIL_CALLBACK_SECRET: 's' })).to.throw(/http/);
    expect(loadConfig({ ...env, PAYOUT_RAIL_URL: 'https://rail.example/payouts', PAYOUT_RAIL_CALLBACK_SECRET: 's' }).payoutRailUrl).to.equal('https://rail.example/payouts');
  });

  it('submits the payout to the rail, signed and keyed by its id, and leaves it PROCESSING without a confirmation', async () => {
    const id = await pay('100.00');
    const [submission] = await submitted(id);
    verifyCallbackSignature(submission.headers['x-provider-signature'] as string, submission.body, RAIL_SECRET); // throws unless signed with the secret
    expect(submission.headers['idempotency-key']).to.equal(id);
    expect(submission.json.business_id, 'the business the callback echoes').to.match(/^[0-9a-f-]{36}$/);
    const payout = await payoutOf(id);
    expect(submission.json).to.deep.include({
      payout_id: id,
      amount: '100.00',
      currency: 'SAR',
      customer_id: customer.id,
      purpose: 'Salary',
      external_reference: 'rail-100.00',
      transaction_id: payout.transaction_id,
      wallet_account_number: payout.wallet_account_number,
    });
    await sleep(2_500); // the sandbox rail would have decided after 1 s (PAYOUT_PROCESSING_MS in the tests)
    expect((await payoutOf(id)).status).to.equal('PROCESSING');
    expect(await eventCodes(id)).to.deep.equal(['payout.pending', 'payout.processing']);
    expect(submissionsOf(id)).to.have.length(1);
  });

  it('completes on a signed confirmation: the money reaches the wallet; a replay is 409, the same outcome again IGNORED, the other outcome 409', async () => {
    const id = await pay('40.00');
    await submitted(id);
    const before = await walletBalance();
    const confirmation = result(id, 'COMPLETED');
    const res = await callback(confirmation);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({ event_id: confirmation.event_id, result: 'APPLIED' });
    const payout = await payoutOf(id);
    expect(payout).to.include({ status: 'COMPLETED', failure_code: null });
    expect(payout.outcome_transaction_id).to.match(/^TXN/);
    expect(Number(await walletBalance()) - Number(before)).to.equal(40);
    expect(await eventCodes(id)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.completed']);

    expectProblem(await callback(confirmation), 409, 'CALLBACK_REPLAYED');
    const again = await callback(result(id, 'COMPLETED'));
    expect(again.status).to.equal(200);
    expect(again.body.result).to.equal('IGNORED');
    expectProblem(await callback(result(id, 'FAILED')), 409, 'PAYOUT_STATUS_NOT_ALLOWED');
    expect((await payoutOf(id)).status).to.equal('COMPLETED');
    expect(Number(await walletBalance()) - Number(before)).to.equal(40);
    expect(await eventCodes(id)).to.have.length(3);
  });

  it('fails on a rejection, applied once however often it arrives: the money returns to the payout account, payout.failed with the failure code', async () => {
    const before = await payoutAccount();
    const id = await pay('25.00');
    await submitted(id);
    expect(Number(before) - Number(await payoutAccount())).to.equal(25);
    // The connector's delivery arriving five times at once is applied once; a connector that
    // does not echo the business is understood too (the payout found by id alone).
    const rejection = result(id, 'FAILED', { failure_code: 'TIMEOUT', business_id: undefined });
    const answers = await Promise.all(Array.from({ length: 5 }, () => callback(rejection)));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409, 409, 409, 409]);
    expect(answers.find((a) => a.status === 200)!.body.result).to.equal('APPLIED');
    for (const a of answers.filter((x) => x.status === 409)) expectProblem(a, 409, 'CALLBACK_REPLAYED');
    expect(await payoutOf(id)).to.include({ status: 'FAILED', failure_code: 'TIMEOUT' });
    expect(await payoutAccount()).to.equal(before);
    expect(await eventCodes(id)).to.deep.equal(['payout.pending', 'payout.processing', 'payout.failed']);
    const events = await get('/events?code=payout.failed&limit=10', opts());
    expect(events.body.data.find((e: any) => e.data.payout_id === id).data).to.include({ status: 'FAILED', amount: '25.00', failure_code: 'TIMEOUT' });
    await assertLedgerConsistent(production.db, submissionsOf(id)[0].json.business_id);
  });

  it('refuses an unsigned, wrongly signed or expired callback (401), an unknown payout (404) and a FAILED without failure_code (400): nothing changes', async () => {
    const id = await pay('10.00');
    await submitted(id);
    const confirmation = result(id, 'COMPLETED');
    expectProblem(await callback(confirmation, { signature: null }), 401, 'INVALID_SIGNATURE');
    const withScreeningSecret = signatureHeaders({ signedBy: 'SCREENING' }, confirmation)['X-Provider-Signature'];
    const refused = await callback(confirmation, { signature: withScreeningSecret });
    expectProblem(refused, 401, 'INVALID_SIGNATURE');
    expect(refused.headers.get('www-authenticate')).to.match(/^Signature /);
    expectProblem(await callback(confirmation, { timestamp: Math.floor(Date.now() / 1000) - 600 }), 401, 'SIGNATURE_EXPIRED');
    expectProblem(await callback(result(randomUUID(), 'COMPLETED')), 404, 'PAYOUT_NOT_FOUND');
    // The payout is looked up within the business the callback names: another business's is not found.
    expectProblem(await callback(result(id, 'COMPLETED', { business_id: randomUUID() })), 404, 'PAYOUT_NOT_FOUND');
    expectValidation(await callback(result(id, 'FAILED', { failure_code: undefined })), '/failure_code');
    expectValidation(await callback(result(id, 'COMPLETED', { failure_code: 'TIMEOUT' })), '/failure_code');
    expect((await payoutOf(id)).status).to.equal('PROCESSING');
    // None of them used up the event id: the signed one is applied.
    expect((await callback(confirmation)).body.result).to.equal('APPLIED');
    expect((await payoutOf(id)).status).to.equal('COMPLETED');
  });

  it('submits again, with the same payout id, when the rail did not take the payout', async () => {
    answers.set('rail-refused-once', [503]);
    const created = await pay('12.00', 'rail-refused-once');
    const submissions = await submitted(created, 2, 30_000);
    expect(submissions.map((s) => s.json.payout_id)).to.deep.equal([created, created]);
    expect(submissions.map((s) => s.headers['idempotency-key'])).to.deep.equal([created, created]);
    expect((await payoutOf(created)).status).to.equal('PROCESSING');
    expect(await eventCodes(created)).to.deep.equal(['payout.pending', 'payout.processing']);
  });
});
