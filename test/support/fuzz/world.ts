/**
 * The real resources the contract fuzz aims at, created through the public API before
 * it starts: a business with wallets, a label and transactions; an ACTIVE customer with
 * an issued card, card step and display sessions, an onboarding session and mobile
 * number changes from both screens; payouts, a bulk payout, a whitelist entry, a webhook
 * endpoint (on a loopback port nothing listens on) and its events; a tokenization
 * activation code request. A second business takes the requests that change a whole
 * business's sandbox (its clock, provider outages), so that they do not turn the
 * first business's later answers into 503s.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../client.js';
import { issuedCard, pendingIssuance, startDisplay, startStep } from '../cards.js';
import { activeCustomer, newMobileNumber, newNationalId, startSession } from '../customers.js';
import { credit, fundedWallet, newBusiness, newWallet, platformToken, topup, type TestBusiness } from '../fixtures.js';
import { changeFromLogin, changeFromProfile } from '../mobileChange.js';
import { sendBulkPayout, sendPayout, topupPayoutAccount } from '../payouts.js';

/** A URL on the loopback interface where nothing listens: webhook deliveries to it fail at once and leave the machine never. */
export const DEAD_LOOPBACK_URL = 'http://127.0.0.1:9/fuzz-hooks';

export interface FuzzWorld {
  business: TestBusiness;
  /** A business whose whole sandbox the fuzz may change (clock, provider outages). */
  sandboxBusiness: TestBusiness;
  platformToken: string;
  /** Real values by path parameter or body field name (ids, account and mobile numbers). */
  values: Map<string, string[]>;
  /** Real `session_id`s by the path they belong to. */
  sessions: { onboarding: string[]; profile: string[]; login: string[]; cardSteps: string[]; display: string[] };
}

function ok(res: { status: number; body: unknown }, status = 200): any {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  return res.body;
}

/** Creates the fuzz's resources (about 60 requests). */
export async function buildWorld(): Promise<FuzzWorld> {
  const business = await newBusiness();
  const sandboxBusiness = await newBusiness();
  const token = business.token;
  const label = ok(await post('/cl/v1/labels', { name: `fuzz-${randomUUID().slice(0, 8)}` }, { token }), 201);
  const funded = await fundedWallet(token, '500.00', { label_id: label.id });
  const empty = await newWallet(token);
  await topup(token, '100.00');
  const fund = await credit(token, funded.id, '10.00');
  const nationalId = newNationalId();
  const customer = await activeCustomer(business, {}, nationalId);
  const { card, issuance } = await issuedCard(business, {}, customer);
  const pending = await pendingIssuance(business, {}, customer);
  const pin = ok(await startStep(business, card.id, 'pin', { pin: '2580' }));
  const replacement = ok(await startStep(business, card.id, 'replacement', { reason: 'DAMAGED' }));
  const display = ok(await startDisplay(business, card.id));
  const onboarding = await startSession(business);
  const profile = ok(await changeFromProfile(business, customer.id, newMobileNumber()));
  const login = ok(await changeFromLogin(business, nationalId, newMobileNumber()));
  await topupPayoutAccount(business, '1000.00');
  const payout = ok(await sendPayout(business, { payout_amount: '5.00', customer_id: customer.id, external_reference: `fuzz-${randomUUID()}` }));
  const bulk = ok(await sendBulkPayout(business, [{ payout_amount: '1.00', customer_id: customer.id }]));
  const entries = ok(await post('/payout-whitelist/entries', { entries: [{ customer_id: customer.id }] }, { token }));
  ok(await post('/cl/v1/webhooks/endpoints', { url: DEAD_LOOPBACK_URL, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, events: ['topup.complete'] }, { token }));
  const endpoints = ok(await get('/cl/v1/webhooks/endpoints?limit=1', { token }));
  const events = ok(await get('/events?limit=5', { token }));
  const activation = ok(await post('/testhelpers/tokenization/activation-code-requests', { card_id: card.id, wallet: 'GOOGLE_PAY', device: 'Pixel 9' }, { token }), 201);
  const transactions = ok(await get('/transactions?limit=5', { token }));

  const values = new Map<string, string[]>([
    ['business_id', [business.id]],
    ['wallet_id', [funded.id, empty.id, customer.wallet_id]],
    ['source_wallet_id', [funded.id]],
    ['destination_wallet_id', [empty.id, customer.wallet_id]],
    ['label_id', [label.id]],
    ['transaction_id', [fund.id]],
    ['original_transaction_id', [fund.id]],
    ['payout_id', [payout.payout_id]],
    ['customer_id', [customer.id]],
    ['card_issuance_id', [issuance.id, pending.issuance.id]],
    ['card_id', [card.id]],
    ['bulk_payout_id', [bulk.bulk_payout_id]],
    ['entry_id', entries.data.map((e: { id: string }) => e.id)],
    ['reference', transactions.data.map((t: { reference: string }) => t.reference)],
    ['event_id', events.data.map((e: { id: string }) => e.id)],
    ['webhook_id', endpoints.data.map((e: { id: string }) => e.id)],
    ['endpoint_id', endpoints.data.map((e: { id: string }) => e.id)],
    ['requestId', [activation.id]],
    ['mobile_number', [customer.mobile_number]],
    ['mobileNumber', [customer.mobile_number]],
    ['new_mobile_number', [newMobileNumber()]],
    ['national_id', [nationalId]],
    ['account_number', [funded.account_number, business.operationalAccountNumber]],
    ['walletAccountNumber', [customer.wallet_account_number]],
    ['url', [DEAD_LOOPBACK_URL]],
  ]);
  for (const [name, list] of values) if (!list.length) values.delete(name);
  return {
    business,
    sandboxBusiness,
    platformToken: await platformToken(),
    values,
    sessions: {
      onboarding: [onboarding.session_id],
      profile: [profile.session_id],
      login: [login.session_id],
      cardSteps: [pin.session_id, replacement.session_id],
      display: [display.session_id],
    },
  };
}
