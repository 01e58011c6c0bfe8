/**
 * The second pair of eyes in the portal (headless Chromium, 390 px dark): with the business's
 * approval amount set, the owner's payout from the Move money page is sent for approval and
 * waits on the Payouts page, where its maker is offered no Approve (and the API refuses the
 * maker if forced); a finance user signs in, approves it, and the payout appears in the list.
 * The settings form sets the approval rules.
 */
import { expect } from 'chai';
import { expectProblem } from '../support/assertions.js';
import { get, request } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { topupPayoutAccount } from '../support/payouts.js';
import { assertNoPageOverflow, checkA11y, mainText, setLook, showPage, signInWithKeyboard } from '../support/portal.js';
import { clickButton, portalSuiteHooks, tableRows, waitForRow } from '../support/portalPages.js';
import { enrolledUser, session, withSession, type PortalUser } from '../support/portalUsers.js';

const WAITING = 'Payouts waiting for approval';

describe('Portal: a payout from the approval amount waits for a second person', function () {
  this.timeout(240_000);
  let customer: { wallet_account_number: string };
  let finance: PortalUser;
  const suite = portalSuiteHooks('the portal payout approvals', async (biz) => {
    customer = await activeCustomer(biz.b);
    await topupPayoutAccount(biz.b, '50000.00');
    finance = await enrolledUser({ token: biz.b.token }, 'finance', biz.b.token);
  });

  it('sets the approval rules in the business settings', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 390, dark: true });
    await showPage(page, 'overview', 'Overview');
    await page.waitForSelector('#approval-from');
    await page.type('#approval-from', '1,000');
    await page.click('#bulk-approval');
    await clickButton(page, 'Save settings');
    await page.waitForFunction(() => document.querySelector('main')?.textContent?.includes('Settings saved.'));
    const business = (await get(`/cl/v1/businesses/${suite.biz.b.id}`, { token: suite.biz.b.token })).body;
    expect(business).to.include({ payout_approval_threshold: '1000.00', bulk_payout_approval: true });
    expect(await page.$eval('#approval-from', (el) => (el as HTMLInputElement).value)).to.equal('1000.00');
    await checkA11y(page, 'the settings with approvals at 390 px dark');
    await assertNoPageOverflow(page, 'the settings with approvals at 390 px dark');
  });

  it('sends the owner’s payout for approval; the owner is offered no Approve and the API refuses the maker', async () => {
    const { page } = suite.portal;
    await showPage(page, 'move-money', 'Move money');
    await page.waitForSelector('#payout-wallet');
    await page.type('#payout-wallet', customer.wallet_account_number);
    await page.type('#payout-amount', '2500.00');
    await clickButton(page, 'Review', 'section[aria-labelledby="payout-title"]');
    // The review reads the receiver and the balances first.
    await page.waitForFunction(() => document.querySelector('main')?.textContent?.includes('Send for approval: pay out 2,500.00 SAR'));
    expect(await mainText(page)).to.include('a second person to approve payouts of this amount');
    await clickButton(page, 'Confirm', 'section[aria-labelledby="payout-title"]');
    await page.waitForSelector('section[aria-labelledby="payout-title"] .done');
    expect(await page.$eval('section[aria-labelledby="payout-title"] .done', (el) => (el as HTMLElement).innerText)).to.match(/Sent for approval: 2,500\.00 SAR\s+waits for a second person/);
    const operations = suite.portal.requests.map((r) => r.operation);
    expect(operations).to.include('core#createPayoutApproval');
    expect(operations).to.not.include('core#createCustomerPayout');

    await showPage(page, 'payouts', 'Payouts');
    await waitForRow(page, WAITING, '2,500.00');
    const [row] = await tableRows(page, WAITING);
    expect(row).to.include('You').and.to.include(`Wallet ${customer.wallet_account_number}`).and.to.include('Waiting for another person: you made it');
    expect(await page.$$eval('section[aria-labelledby="approvals-title"] button', (bs) => bs.map((b) => b.textContent))).to.deep.equal([]);
    await checkA11y(page, 'the approvals waiting at 390 px dark');
    await assertNoPageOverflow(page, 'the approvals waiting at 390 px dark');

    // Forced through the API with the owner's own session, the approval is refused and nothing moves.
    const waiting = (await get('/payout-approvals?status=PENDING', { token: suite.biz.b.token })).body.data[0];
    const owner = await session(suite.biz.owner, { recovery_code: suite.biz.owner.recoveryCodes[0] });
    expectProblem(await withSession(owner, 'POST', `/payout-approvals/${waiting.payout_approval_id}/approve`, { body: { amount: '2500.00' } }), 403, 'MAKER_CANNOT_APPROVE');
    expect((await get('/payouts/', { token: suite.biz.b.token })).body.data).to.deep.equal([]);
    await suite.portal.assertClean();
  });

  it('a finance user signs in, approves it, and the payout appears', async () => {
    const { page } = suite.portal;
    await clickButton(page, 'Sign out', 'header');
    await page.waitForSelector('#email');
    await signInWithKeyboard(page, finance);
    await showPage(page, 'payouts', 'Payouts');
    await waitForRow(page, WAITING, '2,500.00');
    await checkA11y(page, 'the approvals an approver sees at 390 px dark');
    await assertNoPageOverflow(page, 'the approvals an approver sees at 390 px dark');
    await clickButton(page, 'Approve', 'section[aria-labelledby="approvals-title"]');
    await page.waitForFunction(() => document.querySelector('section[aria-labelledby="approvals-title"] [role="status"]')?.textContent?.includes('Approved: payout'));
    await page.waitForFunction(() => document.querySelector('main')?.textContent?.includes('Nothing waits for approval.'));

    const payouts = (await get('/payouts/', { token: suite.biz.b.token })).body.data;
    expect(payouts.map((p: { payout_amount: string }) => p.payout_amount)).to.deep.equal(['2500.00']);
    await showPage(page, 'overview', 'Overview');
    await showPage(page, 'payouts', 'Payouts');
    await waitForRow(page, 'Payouts, newest first', '2,500.00');
    const approvals = suite.portal.requests.filter((r) => r.operation === 'core#approvePayoutApproval').map((r) => r.status);
    expect(approvals).to.deep.equal([200]);
    await checkA11y(page, 'the payout approved at 390 px dark');
    await assertNoPageOverflow(page, 'the payout approved at 390 px dark');
    await suite.portal.assertClean();
  });

  it('refuses to approve through a viewer’s session: the API is the rule, not the page', async () => {
    const viewer = await enrolledUser({ token: suite.biz.b.token }, 'viewer', suite.biz.b.token);
    const s = await session(viewer);
    const pending = await request('POST', '/payout-approvals', { token: suite.biz.b.token, body: { payout: { payout_amount: '1500.00', wallet_account_number: customer.wallet_account_number } } });
    expectProblem(await withSession(s, 'POST', `/payout-approvals/${pending.body.payout_approval_id}/approve`, { body: { amount: '1500.00' } }), 403, 'FORBIDDEN');
  });
});
