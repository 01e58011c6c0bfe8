/**
 * Unexpected failures: a second instance runs on its own database, whose tables are
 * then renamed away under it, so that every operation that reaches the database meets
 * an error no rule anticipates. Each must answer the documented 500 INTERNAL_ERROR as
 * problem details, with no stack, SQL or table name in it. No test hook exists in the
 * server: the fault is real.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RunningService } from '../../../src/server.js';
import { expectProblem } from '../../support/assertions.js';
import { request, post } from '../../support/client.js';
import { accessOf, databaseOperations, exampleRequest, SESSION_OPERATIONS, signatureHeaders } from '../../support/operations.js';
import { demoOwnerSession, sessionHeaders, type Session } from '../../support/portalUsers.js';
import { running, startExtraService } from '../../support/service.js';

const TABLES = [
  'api_clients',
  'businesses',
  'labels',
  'accounts',
  'transactions',
  'ledger_entries',
  'idempotency_keys',
  'webhook_endpoints',
  'outbox_events',
  'sandbox_clocks',
  'sandbox_sms_messages',
  'sandbox_provider_outages',
  'otp_operations',
  'customers',
  'onboarding_sessions',
  'provider_requests',
  'provider_callback_events',
  'card_issuances',
  'cards',
  'card_otp_sessions',
  'tokenization_activation_requests',
  'webhook_deliveries',
  'webhook_delivery_attempts',
  'payouts',
  'payout_settings',
  'payout_whitelist_entries',
  'bulk_payouts',
  'bulk_payout_items',
  'portal_users',
  'portal_user_emails',
  'portal_sessions',
];

describe('500 INTERNAL_ERROR on an unexpected failure (every operation that reaches the database)', () => {
  const database = `wallet_faults_${randomUUID().slice(0, 8)}`;
  let broken: RunningService;
  const tokens: Record<string, string> = {};
  let session: Session;

  before(async function () {
    this.timeout(60_000);
    await running().db.raw(`CREATE DATABASE ${database}`);
    broken = await startExtraService({}, database);
    const token = async (client_id: string, client_secret: string) =>
      (await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id, client_secret }, { baseUrl: broken.url })).body.access_token;
    tokens.platform = await token('sandbox-platform', 'sandbox-platform-secret');
    tokens.business = await token('demo-business', 'demo-business-secret');
    session = await demoOwnerSession(broken.url);
    for (const table of TABLES) await broken.db.raw(`ALTER TABLE ${table} RENAME TO ${table}_gone`);
  });

  after(async function () {
    this.timeout(30_000);
    await broken?.close();
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  it('answers 500 problem details that leak nothing', async function () {
    this.timeout(60_000);
    const reached = databaseOperations();
    expect(reached.length).to.be.greaterThan(25);
    for (const op of reached) {
      const ownSession = SESSION_OPERATIONS.has(op.operationId);
      const token = ownSession ? undefined : accessOf(op.operationId) === 'business' ? tokens.business : tokens.platform;
      const { path, body: sent } = exampleRequest(op);
      const res = await request(op.method, path, {
        token,
        body: sent,
        headers: { ...signatureHeaders(op, sent), ...(ownSession ? sessionHeaders(session) : {}) },
        baseUrl: broken.url,
      });
      expectProblem(res, 500, 'INTERNAL_ERROR');
      expect(JSON.stringify(res.body), op.operationId).not.to.match(/_gone|relation|select|insert|at .*\.ts/i);
    }
  });
});
