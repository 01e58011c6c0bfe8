/**
 * Corrections from the portal, in headless Chromium at 390 px dark, each from the object it
 * corrects and each through a review that says what will happen: a card frozen, unfrozen and
 * blocked (no code of the customer); a payout refunded in part from its wallet's
 * transactions, with the refundable remainder before and after, the retried review sending
 * the same Idempotency-Key; a failed payout paid again with the same data; a wallet suspended
 * and reactivated; a customer put on the payout whitelist and taken off. The review of a
 * movement warns (without blocking) when a balance goes below zero or a payout's external
 * reference was used in the last 24 hours, and a bulk file shows its count and total. A
 * viewer is not offered the corrections, and the API refuses them. Every request is a
 * documented operation answered as documented; axe finds no serious violation, no raw
 * validator message shows, nothing is wider than the screen.
 */
import { expect } from 'chai';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { get, post, request } from '../support/client.js';
import { credit, newWallet, topup, uniq } from '../support/fixtures.js';
import { activeCustomer } from '../support/customers.js';
import { issuedCard } from '../support/cards.js';
import { createPayout, payoutReaching, topupPayoutAccount } from '../support/payouts.js';
import { assertNoPageOverflow, checkA11y, mainText, openPortal, setLook, showPage, signInWithKeyboard } from '../support/portal.js';
import { chooseFile, clickButton, portalSuiteHooks } from '../support/portalPages.js';
import { enrolledUser, session, withSession } from '../support/portalUsers.js';

const PHONE_DARK = { width: 390, dark: true };

describe('Portal: corrections from the object, each reviewed', function () {
  this.timeout(240_000);
  let customer: any;
  let card: any;
  let wallet: any;
  let payoutTx: any;
  let failed: any;
  let funded: any;
  let fundTx: any;
  const reference = `RETRY-${uniq()}`;
  const suite = portalSuiteHooks('the portal corrections', async (biz) => {
    customer = await activeCustomer(biz.b);
    ({ card } = await issuedCard(biz.b, {}, customer));
    wallet = await newWallet(biz.b.token, { name: 'Refunds desk' });
    await topup(biz.b.token, '100.00');
    payoutTx = await credit(biz.b.token, wallet.id, '100.00', 'payouts');
    funded = await newWallet(biz.b.token, { name: 'Mistaken fund' });
    await topup(biz.b.token, '25.00');
    fundTx = await credit(biz.b.token, funded.id, '25.00');
    await topupPayoutAccount(biz.b, '500.00');
    failed = await createPayout(biz.b, { payout_amount: '12.5', customer_id: customer.id, external_reference: reference, payout_purpose: 'Cashback' });
    const outcome = await post(`/testhelpers/payouts/${failed.payout_id}/outcome`, { status: 'FAILED' }, { token: biz.b.token });
    expect(outcome.status, JSON.stringify(outcome.body)).to.equal(200);
    await payoutReaching(biz.b, failed.payout_id, 'FAILED');
  });
  const as = () => ({ token: suite.biz.b.token });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  /** Waits until `selector`'s text holds `text`; its text. */
  const textOf = async (page: Page, selector: string, text: string): Promise<string> => {
    await page.waitForFunction((s, t) => [...document.querySelectorAll(s)].some((el) => (el as HTMLElement).innerText.includes(t)), {}, selector, text);
    return page.$$eval(selector, (els) => els.map((el) => (el as HTMLElement).innerText).join('\n'));
  };
  /** The Idempotency-Keys of the POSTs to `path` the page sends from now until `stop()`. */
  const keysSent = (page: Page, path: string) => {
    const keys: string[] & { stop?: () => void } = [];
    const onRequest = (req: HTTPRequest) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === path) keys.push(req.headers()['idempotency-key']);
    };
    page.on('request', onRequest);
    return Object.assign(keys, { stop: () => void page.off('request', onRequest) });
  };
  /** Checks the page as it is now: axe, words, width. */
  const looked = async (page: Page, label: string) => {
    await assertNoPageOverflow(page, label);
    await checkA11y(page, label);
  };

  it('freezes, unfreezes and blocks a card from the customer’s panel, without the customer’s code', async () => {
    const { page } = suite.portal;
    await setLook(page, PHONE_DARK);
    await showPage(page, 'customers', 'Customers');
    await page.waitForSelector(`button[aria-label="Open customer ${customer.mobile_number}"]`);
    await clickButton(page, `Open customer ${customer.mobile_number}`);
    await page.waitForSelector(`button[aria-label="Correct card ${card.last_4_digits}"]`);
    await clickButton(page, `Correct card ${card.last_4_digits}`);
    const group = `[aria-label="Corrections of card •••• ${card.last_4_digits}"]`;
    expect(await mainText(page)).to.include('frozen, unfrozen or blocked here without the customer’s code');
    expect(await mainText(page)).to.not.include('Changing the customer or a card (PIN');

    await clickButton(page, 'Freeze', group);
    expect(await textOf(page, `${group} [role="group"]`, 'Freeze card')).to.include('Temporarily blocked: every purchase is declined');
    await looked(page, 'a card’s freeze review at 390 px dark');
    await clickButton(page, 'Confirm', group);
    await textOf(page, `${group} .done`, 'is now temporarily blocked');
    expect((await get(`/cards/${card.id}`, as())).body.status).to.equal('TEMPORARILY_BLOCKED');

    await page.waitForFunction((g) => [...document.querySelectorAll(`${g} button`)].some((b) => b.textContent === 'Unfreeze'), {}, group);
    await clickButton(page, 'Unfreeze', group);
    await textOf(page, `${group} [role="group"]`, 'Unfreeze card');
    await clickButton(page, 'Confirm', group);
    await textOf(page, `${group} .done`, 'is now active');
    expect((await get(`/cards/${card.id}`, as())).body.status).to.equal('ACTIVE');

    await page.waitForFunction((g) => [...document.querySelectorAll(`${g} button`)].some((b) => b.textContent === 'Freeze'), {}, group);
    await clickButton(page, 'Block', group);
    await page.waitForSelector(`#block-${card.id}-status`);
    await page.select(`#block-${card.id}-status`, 'STOLEN');
    await clickButton(page, 'Review', group);
    expect(await textOf(page, `${group} [role="group"]`, 'Block card')).to.include('final, it cannot be unblocked');
    await clickButton(page, 'Confirm', group);
    await page.waitForFunction(() => document.querySelector('main')?.textContent?.includes('is now stolen'));
    expect((await get(`/cards/${card.id}`, as())).body.status).to.equal('STOLEN');
    await looked(page, 'a blocked card at 390 px dark');
  });

  it('refunds part of a payout from its wallet’s transactions, showing the remainder, and a retried review sends the same Idempotency-Key', async () => {
    const { page } = suite.portal;
    const keys = keysSent(page, '/cl/v1/refunds');
    await setLook(page, PHONE_DARK);
    await showPage(page, 'wallets', 'Wallets');
    await page.type('#wallet-account-number', wallet.account_number);
    await clickButton(page, 'Find', 'form[aria-labelledby="wallet-lookup-title"]');
    await page.waitForSelector('#wallet-detail-title');
    expect(await page.$eval('[data-field="can-overdraft"]', (el) => el.textContent)).to.equal('No');
    await page.waitForSelector(`button[aria-label="Correct ${payoutTx.reference}"]`);
    await clickButton(page, `Correct ${payoutTx.reference}`);
    const group = `[aria-label="Corrections of ${payoutTx.reference}"][role="group"]`;
    expect(await textOf(page, `${group} [data-field="refundable"]`, 'Refundable')).to.equal('Refundable: 100.00 SAR of 100.00 SAR (refunded so far 0.00 SAR).');

    await clickButton(page, 'Refund', group);
    const amount = `#refund-${payoutTx.id}-amount`;
    await page.waitForSelector(amount);
    expect(await page.$eval(amount, (i) => (i as HTMLInputElement).value)).to.equal('100.00');
    await page.$eval(amount, (i) => ((i as HTMLInputElement).value = ''));
    await page.type(amount, '120');
    await clickButton(page, 'Review', group);
    expect(await textOf(page, `${group} .problem`, 'At most')).to.include('At most 100.00 SAR can still be refunded.');
    await page.$eval(amount, (i) => ((i as HTMLInputElement).value = ''));
    await page.type(amount, '30');
    await clickButton(page, 'Review', group);
    const review = await textOf(page, `${group} [role="group"]`, 'Refundable after this');
    expect(review).to.include('Refund 30.00 SAR of payout').and.include('Refunds desk · wallet').and.include('70.00 SAR');
    await looked(page, 'a refund’s review at 390 px dark');

    // The answer is lost (no network): Confirm again sends the same attempt.
    await page.setOfflineMode(true);
    await clickButton(page, 'Confirm', group);
    await textOf(page, `${group} .problem`, 'could not be reached');
    await page.setOfflineMode(false);
    await clickButton(page, 'Confirm', group);
    await textOf(page, `${group} .done`, 'Refunded 30.00 SAR');
    keys.stop();
    suite.portal.consoleErrors.length = 0; // Chromium logs the request the offline page could not send.
    expect(keys.length).to.equal(2);
    expect(keys[1]).to.equal(keys[0]).and.match(/^[0-9a-f-]{36}$/);
    const refunds = suite.portal.requests.filter((r) => r.operation === 'closed-loop#createRefund' && r.status !== undefined);
    expect(refunds.map((r) => r.status)).to.deep.equal([201]);
    expect((await get(`/cl/v1/transactions/${payoutTx.id}`, as())).body.refunded_amount).to.equal('30.00');
    expect(await textOf(page, `${group} [data-field="refundable"]`, '70.00')).to.include('Refundable: 70.00 SAR of 100.00 SAR');
  });

  it('suspends and reactivates a wallet from its panel', async () => {
    const { page } = suite.portal;
    const group = `[aria-label="Corrections of wallet ${wallet.account_number}"]`;
    await page.waitForSelector(group);
    await clickButton(page, 'Suspend wallet', group);
    expect(await textOf(page, `${group} [role="group"]`, 'Suspend Wallet')).to.include('the service refuses every movement');
    await looked(page, 'a wallet’s suspension review at 390 px dark');
    await clickButton(page, 'Confirm', group);
    await textOf(page, '.card', 'is now suspended');
    expect((await get(`/cl/v1/wallets/${wallet.id}`, as())).body.status).to.equal('SUSPENDED');
    await page.waitForFunction((g) => [...document.querySelectorAll(`${g} button`)].some((b) => b.textContent === 'Reactivate wallet'), {}, group);
    await clickButton(page, 'Reactivate wallet', group);
    await textOf(page, `${group} [role="group"]`, 'Reactivate Wallet');
    await clickButton(page, 'Confirm', group);
    await textOf(page, '.card', 'is now active');
    expect((await get(`/cl/v1/wallets/${wallet.id}`, as())).body.status).to.equal('ACTIVE');
  });

  it('reverses a fund in full; after a refusal, the next Confirm is a new attempt with a new key', async () => {
    const { page } = suite.portal;
    const keys = keysSent(page, '/cl/v1/reversals');
    await page.$eval('#wallet-account-number', (i) => ((i as HTMLInputElement).value = ''));
    await page.type('#wallet-account-number', funded.account_number);
    await clickButton(page, 'Find', 'form[aria-labelledby="wallet-lookup-title"]');
    await page.waitForSelector(`button[aria-label="Correct ${fundTx.reference}"]`);
    await clickButton(page, `Correct ${fundTx.reference}`);
    const group = `[aria-label="Corrections of ${fundTx.reference}"][role="group"]`;
    await page.waitForSelector(group);
    expect(await page.$(`${group} [data-field="refundable"]`), 'a fund takes no refund').to.equal(null);
    await clickButton(page, 'Reverse', group);
    const operational = suite.biz.b.operationalAccountNumber;
    const review = await textOf(page, `${group} [role="group"]`, 'Afterwards');
    expect(review).to.include(`Reverse ${fundTx.reference} in full: 25.00 SAR back from account ${funded.account_number} to account ${operational}.`);
    expect(review).to.include(`Wallet ${funded.account_number} after\n0.00 SAR`);
    expect((await request('PATCH', `/cl/v1/wallets/${funded.id}`, { ...as(), body: { status: 'SUSPENDED' } })).status).to.equal(200);
    await clickButton(page, 'Confirm', group);
    await textOf(page, `${group} .problem`, 'not active');
    await looked(page, 'a refused reversal at 390 px dark');
    expect((await request('PATCH', `/cl/v1/wallets/${funded.id}`, { ...as(), body: { status: 'ACTIVE' } })).status).to.equal(200);
    await clickButton(page, 'Confirm', group);
    await textOf(page, `${group} .done`, 'Reversed');
    keys.stop();
    suite.portal.consoleErrors.length = 0; // Chromium logs the refused reversal's 422.
    expect(keys).to.have.length(2);
    expect(keys[1], 'a refusal is kept with its key: the next attempt has its own').to.not.equal(keys[0]);
    expect((await get(`/cl/v1/transactions/${fundTx.id}`, as())).body.reversal_transaction_id).to.be.a('string');
    expect((await get(`/cl/v1/wallets/${funded.id}`, as())).body.balance).to.equal('0.00');
  });

  it('warns, without blocking, when a transfer takes a wallet below zero', async () => {
    const { page } = suite.portal;
    const other = await newWallet(suite.biz.b.token, { name: 'Other desk' });
    await showPage(page, 'move-money', 'Move money');
    const form = 'section[aria-labelledby="transfer-title"]';
    await page.waitForSelector('#transfer-source_wallet_id');
    await page.select('#transfer-source_wallet_id', wallet.id);
    await page.select('#transfer-destination_wallet_id', other.id);
    await page.type('#transfer-amount', '12,50');
    await clickButton(page, 'Review', form);
    expect(await textOf(page, `${form} .problem`, 'amount')).to.include('such as 12.50');
    await page.$eval('#transfer-amount', (i) => ((i as HTMLInputElement).value = ''));
    await page.type('#transfer-amount', '1000');
    await clickButton(page, 'Review', form);
    const warning = await textOf(page, `${form} .warning`, 'below zero');
    expect(warning).to.include(`Wallet ${wallet.account_number} goes below zero: -930.00 SAR after this (the wallet may not overdraft`);
    const review = await mainText(page);
    expect(review).to.include('Transfer 1,000.00 SAR to Other desk · wallet').and.include(`Wallet ${other.account_number} after`);
    expect(await page.$$eval(`${form} .money.negative`, (els) => els.map((e) => e.textContent))).to.deep.equal(['-930.00 SAR']);
    await looked(page, 'a transfer’s review going below zero at 390 px dark');
    expect(await page.$eval(`${form} [role="group"] button`, (b) => (b as HTMLButtonElement).disabled), 'Confirm stays offered').to.equal(false);
    await clickButton(page, 'Edit', form);
  });

  it('pays a failed payout again with the same data, warning of its reference used in the last 24 hours', async () => {
    const { page } = suite.portal;
    await showPage(page, 'payouts', 'Payouts');
    await page.waitForSelector(`button[aria-label="Open payout ${failed.payout_id}"]`);
    await clickButton(page, `Open payout ${failed.payout_id}`);
    const group = `[aria-label="Corrections of payout ${failed.payout_id}"]`;
    await page.waitForSelector(group);
    await clickButton(page, 'Retry with the same data', group);
    const review = await textOf(page, `${group} [role="group"]`, 'Payout account after');
    expect(review).to.include(`Pay 12.50 SAR again, as a new payout with the data of failed payout ${failed.payout_id}`);
    expect(review).to.include(`${customer.full_name} · wallet ${customer.wallet_account_number}`).and.include('Cashback').and.include(reference);
    expect(await textOf(page, `${group} .warning`, 'external reference')).to.include(`“${reference}” was used by another payout in the last 24 hours`);
    await looked(page, 'a failed payout’s retry review at 390 px dark');
    await clickButton(page, 'Confirm', group);
    await textOf(page, `${group} .done`, `retries payout ${failed.payout_id}`);
    const again = (await get(`/payouts/?external_reference=${reference}`, as())).body.data;
    expect(again.map((p: any) => [p.payout_amount, p.customer_id, p.payout_purpose])).to.deep.equal([['12.50', customer.id, 'Cashback'], ['12.50', customer.id, 'Cashback']]);
  });

  it('puts a customer on the payout whitelist and takes it off; a bulk file shows its count and total before sending', async () => {
    const { page } = suite.portal;
    await page.waitForSelector('#whitelist-title');
    const section = 'section[aria-labelledby="whitelist-title"]';
    await textOf(page, `${section} [data-field="whitelist-enforced"]`, 'Not enforced');
    await clickButton(page, 'Add a customer', section);
    await page.waitForSelector('#whitelist-add-by');
    await page.select('#whitelist-add-by', 'mobileNumber');
    await page.type('#whitelist-add-value', customer.mobile_number);
    await clickButton(page, 'Review', section);
    await textOf(page, `${section} [role="group"]`, `mobile number ${customer.mobile_number} on the payout whitelist`);
    await clickButton(page, 'Confirm', section);
    await textOf(page, `${section} table`, customer.wallet_account_number);
    expect((await get('/payout-whitelist/entries', as())).body.data.map((e: any) => e.customer_id)).to.deep.equal([customer.id]);
    await looked(page, 'the payout whitelist at 390 px dark');
    await clickButton(page, `Remove ${customer.mobile_number}`, section);
    await textOf(page, `${section} table [role="group"]`, 'off the payout whitelist');
    await clickButton(page, 'Confirm', `${section} table`);
    await textOf(page, section, 'No customer is on the whitelist.');
    expect((await get('/payout-whitelist/entries', as())).body.data).to.deep.equal([]);

    await chooseFile(page, '#bulk-file', 'two.csv', `payout_amount,customer_id,external_reference\n10.5,${customer.id},B-1\n2.25,${customer.id},B-2\n`);
    const total = await textOf(page, '[data-field="bulk-total"]', 'Total');
    expect(total).to.include('2 payouts').and.include('12.75 SAR').and.include('Payout account after');
    await looked(page, 'a bulk file’s total at 390 px dark');
    await setLook(page, { width: 1280, dark: false });
    await looked(page, 'the Payouts page with its whitelist and a bulk file’s total at 1280 px light');
    await setLook(page, PHONE_DARK);
  });

  it('offers a viewer no correction, and the API refuses one', async () => {
    const viewer = await enrolledUser(as(), 'viewer', suite.biz.b.token);
    const context = await suite.portal.page.browser().createBrowserContext();
    const portal = await openPortal(context);
    try {
      const { page } = portal;
      await setLook(page, PHONE_DARK);
      await signInWithKeyboard(page, viewer);
      await showPage(page, 'payouts', 'Payouts');
      await page.waitForSelector(`button[aria-label="Open payout ${failed.payout_id}"]`);
      await clickButton(page, `Open payout ${failed.payout_id}`);
      await page.waitForSelector(`section[aria-label="Payout ${failed.payout_id}"]`);
      await page.waitForSelector('[data-field="whitelist-enforced"]');
      const buttons = () => page.$$eval('main button', (bs) => bs.map((b) => b.textContent?.trim()));
      const none = async (texts: string[]) => {
        const shown = await buttons();
        for (const text of texts) expect(shown, `a viewer is offered "${text}"`).to.not.include(text);
      };
      await none(['Retry with the same data', 'Add a customer', 'Enforce the whitelist']);
      await showPage(page, 'wallets', 'Wallets');
      await page.type('#wallet-account-number', wallet.account_number);
      await clickButton(page, 'Find', 'form[aria-labelledby="wallet-lookup-title"]');
      await page.waitForSelector('#wallet-detail-title');
      await page.waitForFunction((r) => document.querySelector('main')?.textContent?.includes(r), {}, payoutTx.reference);
      await none(['Suspend wallet', 'Correct']);
      await showPage(page, 'customers', 'Customers');
      await page.waitForSelector(`button[aria-label="Open customer ${customer.mobile_number}"]`);
      await clickButton(page, `Open customer ${customer.mobile_number}`);
      await page.waitForFunction((n) => document.querySelector('main')?.textContent?.includes(`•••• ${n}`), {}, card.last_4_digits);
      await none(['Correct']);
      await checkA11y(page, 'a viewer’s customer panel at 390 px dark');
      await portal.assertClean();
    } finally {
      await context.close();
    }
    const s = await session(viewer, { recovery_code: viewer.recoveryCodes[0] });
    const refused = await withSession(s, 'PATCH', `/cl/v1/wallets/${wallet.id}`, { body: { status: 'SUSPENDED' } });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
  });
});
