/**
 * Moving money through a portal session: at or above PORTAL_REAUTHENTICATION_AMOUNT (the
 * default 10000.00 here) a session whose last TOTP code is older than the re-authentication
 * window is refused with the same problem as the other sensitive steps, and nothing moves,
 * until the user re-authenticates; below it, and with an API key, nothing is asked. In the
 * portal (headless Chromium), a large payout asks for the code in a dialog, then goes through.
 */
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { expectProblem } from '../support/assertions.js';
import { fundedWallet, newBusiness, newWallet, uniq, type TestBusiness } from '../support/fixtures.js';
import { enrolledUser, session, withSession, type PortalUser, type Session } from '../support/portalUsers.js';
import { running } from '../support/service.js';
import { showPage } from '../support/portal.js';
import { clickButton, portalSuiteHooks } from '../support/portalPages.js';
import { activeCustomer } from '../support/customers.js';
import { topupPayoutAccount } from '../support/payouts.js';

describe('portal users: re-authentication for large movements', function () {
  this.timeout(60_000);
  let business: TestBusiness;
  let finance: PortalUser;
  let s: Session;
  const as = () => ({ token: business.token });
  const balance = async (walletId: string): Promise<string> => (await get(`/cl/v1/wallets/${walletId}/balance`, as())).body.balance;
  /** The session's last code, eleven minutes ago (the default window is ten). */
  const age = () =>
    running()
      .db('portal_sessions')
      .where({ business_id: business.id, user_id: finance.id })
      .update({ authenticated_at: running().db.raw("CURRENT_TIMESTAMP(3) - interval '11 minutes'") });

  before(async () => {
    business = await newBusiness();
    finance = await enrolledUser(as(), 'finance', business.token);
    s = await session(finance);
  });

  it('moves less than the threshold without a code, refuses the threshold and more until the user re-authenticates; an API key is not asked', async () => {
    const source = await fundedWallet(business.token, '30000.00');
    const destination = await newWallet(business.token);
    const transfer = (amount: string) => withSession(s, 'POST', '/cl/v1/transfers', { body: { source_wallet_id: source.id, destination_wallet_id: destination.id, amount } });
    await age();
    const small = await transfer('9999.99');
    expect(small.status, JSON.stringify(small.body)).to.equal(201);

    const refused = await transfer('10000.00');
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(refused.body.detail).to.include('/portal-sessions/current/reauthentication');
    expect([await balance(source.id), await balance(destination.id)]).to.deep.equal(['20000.01', '9999.99']);
    // A reversal's amount is its original's, which the request does not carry: always asked.
    expectProblem(await withSession(s, 'POST', '/cl/v1/reversals', { body: { original_transaction_id: small.body.id } }), 403, 'FORBIDDEN');
    // A bulk payout counts the sum of its items, each below the threshold.
    const item = () => ({ payout_amount: '5000.00', external_reference: `bulk-${uniq()}`, customer_id: source.id });
    const bulk = await withSession(s, 'POST', '/bulk-payouts', { body: { items: [item(), item()] }, headers: { 'idempotency-key': uniq() } });
    expectProblem(bulk, 403, 'FORBIDDEN');
    expect((await get('/bulk-payouts', as())).body.data).to.deep.equal([]);

    const again = await withSession(s, 'POST', '/portal-sessions/current/reauthentication', { body: { recovery_code: finance.recoveryCodes[0] } });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect((await transfer('10000.00')).status).to.equal(201);
    expect([await balance(source.id), await balance(destination.id)]).to.deep.equal(['10000.01', '19999.99']);

    const byKey = await post('/cl/v1/transfers', { source_wallet_id: source.id, destination_wallet_id: destination.id, amount: '10000.00' }, as());
    expect(byKey.status, JSON.stringify(byKey.body)).to.equal(201);
    expect(await balance(source.id)).to.equal('0.01');
  });
});

describe('Portal: a large payout asks for a recent code', function () {
  this.timeout(180_000);
  let customer: { wallet_account_number: string };
  const suite = portalSuiteHooks('the portal large payout re-authentication', async (biz) => {
    customer = await activeCustomer(biz.b);
    await topupPayoutAccount(biz.b, '10000.00');
  });

  it('asks for the code in a dialog eleven minutes after the sign-in, then sends the payout', async () => {
    const { page } = suite.portal;
    await running().db('portal_sessions').where({ user_id: suite.biz.owner.id }).update({ authenticated_at: running().db.raw("CURRENT_TIMESTAMP(3) - interval '11 minutes'") });
    await showPage(page, 'move-money', 'Move money');
    await page.waitForSelector('#payout-wallet');
    await page.type('#payout-wallet', customer.wallet_account_number);
    await page.type('#payout-amount', '10000.00');
    await clickButton(page, 'Review', 'section[aria-labelledby="payout-title"]');
    await page.waitForSelector('section[aria-labelledby="payout-title"] .confirm');
    await clickButton(page, 'Confirm', 'section[aria-labelledby="payout-title"]');
    await page.waitForSelector('#reauth-code');
    await page.type('#reauth-code', suite.biz.owner.recoveryCodes[0]);
    await clickButton(page, 'Confirm', 'form.dialog');
    await page.waitForSelector('section[aria-labelledby="payout-title"] .done');
    expect(suite.portal.requests.filter((r) => r.operation === 'core#createCustomerPayout').map((r) => r.status)).to.deep.equal([403, 200]);
    suite.portal.consoleErrors.length = 0; // Chromium logs the 403 that asked for the code.
    await suite.portal.assertClean();
  });
});
