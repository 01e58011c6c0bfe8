/**
 * The portal's Wallets, Events, Sandbox and Customers pages in headless Chromium (harness:
 * test/support/portal.ts): wallets filtered by name, a wallet found by its account number,
 * its transactions filtered by type and its statement saved as CSV, the transactions of all
 * wallets by type; the events listed,
 * filtered and one's data opened below its row; in the sandbox an SMS read, the business's
 * clock moved and a payout's outcome set; the customers listed and one opened with its
 * wallet and its cards. Every request is a
 * documented operation answered as documented, none leaves the service's origin, no console
 * error, and axe finds no serious violation on each page.
 */
import { expect } from 'chai';
import { issuedCard } from '../support/cards.js';
import { get } from '../support/client.js';
import { activeCustomer } from '../support/customers.js';
import { fundedWallet, newWallet } from '../support/fixtures.js';
import { checkA11y, mainText, showPage } from '../support/portal.js';
import { clickButton, portalSuiteHooks, tableRows, waitForRow } from '../support/portalPages.js';
import { createPayout, payoutOf, topupPayoutAccount } from '../support/payouts.js';

describe('Portal Wallets, Events and Sandbox pages in headless Chromium', function () {
  this.timeout(240_000);
  let customer: any;
  let wallet: any;
  const suite = portalSuiteHooks('the portal Wallets, Events and Sandbox pages', async (biz) => {
    customer = await activeCustomer(biz.b);
    wallet = await fundedWallet(biz.b.token, '250.00', { name: 'Funded for the portal' });
    // A page of newer wallets, so that the funded one is on the list's second page.
    for (let i = 0; i < 20; i++) await newWallet(biz.b.token);
  });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  it('finds a wallet by account number, lists its transactions and saves its statement as CSV', async () => {
    const { portal, downloads } = suite;
    const { page } = portal;
    await showPage(page, 'wallets', 'Wallets');
    await page.waitForSelector('table caption');
    expect(await tableRows(page, 'Wallets, newest first')).to.have.length(20);
    expect((await tableRows(page, 'Wallets, newest first')).join('\n')).to.not.include(wallet.account_number);
    await checkA11y(page, 'the Wallets page');
    await clickButton(page, 'Next page');
    await waitForRow(page, 'Wallets, newest first', wallet.account_number);
    // The rest: the funded wallet and the one the customer's onboarding made.
    expect(await tableRows(page, 'Wallets, newest first')).to.have.length(2);
    expect(portal.requests.filter((r) => r.operation === 'closed-loop#listWallets').map((r) => r.url.replace(/=.*/, '='))).to.deep.equal([
      '/cl/v1/wallets',
      '/cl/v1/wallets?cursor=',
    ]);
    // Filtered by its exact name: the funded wallet alone.
    await page.type('#wallets-name', 'Funded for the portal');
    await clickButton(page, 'Show wallets');
    await page.waitForFunction(() => [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === 'Wallets, newest first')?.tBodies[0].rows.length === 1);
    expect((await tableRows(page, 'Wallets, newest first'))[0]).to.include(wallet.account_number).and.include('250.00 SAR');
    expect(portal.requests.filter((r) => r.operation === 'closed-loop#listWallets').at(-1)?.url).to.equal('/cl/v1/wallets?name=Funded+for+the+portal');
    // An account number the business has no wallet with: the problem as the service words it.
    const unknown = await get('/cl/v1/wallets/lookup?account_number=999999999999', { token: suite.biz.b.token });
    expect(unknown.status).to.equal(404);
    await page.type('#wallet-account-number', '999999999999');
    await clickButton(page, 'Find');
    await page.waitForSelector('form [role="alert"]');
    expect(await page.$eval('form [role="alert"]', (el) => (el as HTMLElement).innerText)).to.include(unknown.body.title).and.include(unknown.body.detail);
    await checkA11y(page, 'the Wallets page with a problem');
    await page.waitForNetworkIdle({ idleTime: 200 });
    // Chromium logs every 4xx answer to a fetch as a console error; this one is the test's own doing.
    expect(portal.consoleErrors).to.have.length(1);
    expect(portal.consoleErrors[0]).to.include('404');
    portal.consoleErrors.length = 0;

    await page.click('#wallet-account-number', { clickCount: 3 });
    await page.type('#wallet-account-number', wallet.account_number);
    await clickButton(page, 'Find');
    await waitForRow(page, 'Transactions', 'Fund');
    const [fund] = await tableRows(page, 'Transactions');
    expect(fund).to.include('Fund').and.include('Credit').and.include('250.00 SAR');
    expect(portal.requests.filter((r) => r.operation === 'closed-loop#lookupWallet').map((r) => r.url)).to.deep.equal([
      '/cl/v1/wallets/lookup?account_number=999999999999',
      `/cl/v1/wallets/lookup?account_number=${wallet.account_number}`,
    ]);
    await checkA11y(page, 'the Wallets page with a wallet');

    // Only its top-ups: none, the problem-free empty list.
    await page.select('#tx-type', 'TOPUP');
    await clickButton(page, 'Show transactions');
    await page.waitForSelector('::-p-text(No transactions match.)');
    expect(portal.requests.filter((r) => r.operation === 'closed-loop#listWalletTransactions').at(-1)?.url).to.match(/\?type=TOPUP$/);

    await clickButton(page, 'Download statement (CSV)');
    const saved = await downloads.saved(`statement-${wallet.account_number}.csv`);
    const lines = saved.trim().split('\n');
    expect(lines[0]).to.match(/^created_at,/);
    expect(lines[1]).to.include('OPENING_BALANCE');
    expect(lines.some((l) => /,FUND,CREDIT,250\.00,250\.00$/.test(l)), saved).to.equal(true);
    expect(lines.at(-1)).to.include('CLOSING_BALANCE').and.match(/,250\.00$/);
    await page.waitForNetworkIdle({ idleTime: 200 });
    expect(portal.requests.filter((r) => r.operation === 'closed-loop#getWalletStatementCsv').map((r) => r.status)).to.deep.equal([200]);

    // Across all wallets: the funds, the one into this wallet among them.
    await page.select('#all-tx-type', 'FUND');
    await clickButton(page, 'Show transactions', 'section[aria-labelledby="all-transactions-title"]');
    await page.waitForNetworkIdle({ idleTime: 200 });
    await waitForRow(page, 'Transactions of all wallets, newest first', wallet.account_number);
    const funds = await tableRows(page, 'Transactions of all wallets, newest first');
    expect(funds.every((r) => r.includes('Fund')), funds.join('\n')).to.equal(true);
    expect(portal.requests.filter((r) => r.operation === 'closed-loop#listTransactions').at(-1)?.url).to.equal('/cl/v1/transactions?type=FUND');
  });

  it('lists the events, filters them by code and shows one with its data', async () => {
    const { portal } = suite;
    const { page } = portal;
    await showPage(page, 'events', 'Events');
    await waitForRow(page, 'Events, newest first', 'Onboarding complete');
    await checkA11y(page, 'the Events page');
    await page.select('#event-code', 'onboarding.complete');
    await clickButton(page, 'Show events');
    await page.waitForFunction(() => {
      const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === 'Events, newest first');
      return table && [...table.tBodies[0].rows].every((r) => r.cells[0].textContent === 'Onboarding complete');
    });
    const filtered = portal.requests.filter((r) => r.operation === 'core#listEvents').map((r) => r.url);
    expect(filtered.at(-1)).to.equal('/events?code=onboarding.complete&limit=20');
    const eventId = await page.$eval('table tbody tr td:nth-child(3) code', (el) => el.textContent ?? '');
    await clickButton(page, `Show data of event ${eventId}`);
    // The data opens in the row right below the one clicked.
    await page.waitForSelector('table tbody tr:nth-child(2).detail pre');
    const data = JSON.parse(await page.$eval('tr.detail pre', (el) => el.textContent ?? ''));
    expect(data).to.include({ customer_id: customer.id, mobile_number: customer.mobile_number });
    await checkA11y(page, 'the Events page with an event open');
  });

  it("reads an SMS, moves the business's clock and sets a payout's outcome in the sandbox", async () => {
    const { portal, biz } = suite;
    const { page } = portal;
    await showPage(page, 'sandbox', 'Sandbox');
    await page.waitForSelector('#sms-title');
    await checkA11y(page, 'the Sandbox page');
    await page.type('#sms-number', customer.mobile_number);
    await clickButton(page, 'Show messages');
    await waitForRow(page, 'SMS messages, newest first', customer.mobile_number);
    const sms = await tableRows(page, 'SMS messages, newest first');
    expect(sms.length).to.be.greaterThan(0);
    expect(sms.every((r) => r.startsWith(customer.mobile_number))).to.equal(true);
    expect(sms.join('\n')).to.match(/\b\d{6}\b/);

    await clickButton(page, 'Advance clock');
    await page.waitForFunction(() => document.querySelector('#clock-title')?.parentElement?.textContent?.includes('301 seconds ahead'));

    await topupPayoutAccount(biz.b, '100.00');
    // `.99` keeps the sandbox's payout PROCESSING until its outcome is set.
    const created = await createPayout(biz.b, { payout_amount: '20.99', customer_id: customer.id });
    await page.type('#outcome-payout', created.payout_id);
    await clickButton(page, 'Set outcome');
    await page.waitForSelector('#outcome-title ~ dl dd[data-field="status"]');
    expect(await page.$eval('dd[data-field="status"]', (el) => el.textContent)).to.equal('Completed');
    expect((await payoutOf(biz.b, created.payout_id)).status).to.equal('COMPLETED');
    expect(await mainText(page)).to.include('20.99 SAR');

    // A purchase with the customer's card, paid from the wallet the payout just credited.
    const { card } = await issuedCard(biz.b, {}, customer);
    await page.type('#card-id', card.id);
    await page.type('#card-amount', '5.00');
    await page.type('#card-merchant', 'Corner Coffee');
    await clickButton(page, 'Authorize purchase');
    await page.waitForSelector('#card-title ~ p[role="status"]');
    const answer = await page.$eval('#card-title ~ p[role="status"]', (el) => (el as HTMLElement).innerText);
    expect(answer).to.match(card.status === 'ACTIVE' ? /^Approved: 5\.00 SAR, transaction TXN\d{12}/ : /^Declined \(card not active\)/);
    await checkA11y(page, 'the Sandbox page after its actions');
  });

  it('lists the customers, filters them by status and opens one with its wallet and its cards', async () => {
    const { portal, biz } = suite;
    const { page } = portal;
    const { card } = await issuedCard(biz.b, {}, customer);
    await showPage(page, 'customers', 'Customers');
    await waitForRow(page, 'Customers, newest first', customer.mobile_number);
    await page.select('#customers-status', 'ACTIVE');
    await clickButton(page, 'Show customers');
    await page.waitForNetworkIdle({ idleTime: 200 });
    expect(portal.requests.filter((r) => r.operation === 'core#listCustomers').map((r) => r.url).at(-1)).to.equal('/customers?status=ACTIVE&limit=20');
    const rows = await tableRows(page, 'Customers, newest first');
    expect(rows.every((r) => r.includes('Active')), rows.join('\n')).to.equal(true);
    await clickButton(page, `Open customer ${customer.mobile_number}`);
    await page.waitForSelector('dl[aria-label="Customer wallet"]');
    expect(await page.$eval('dl[aria-label="Customer wallet"]', (el) => (el as HTMLElement).innerText)).to.include(customer.wallet_account_number);
    const caption = `Cards of ${customer.full_name ?? customer.mobile_number}`;
    await waitForRow(page, caption, card.id);
    const cards = await tableRows(page, caption);
    expect(cards[0]).to.include(`•••• ${card.last_4_digits}`).and.include('Virtual');
    expect(portal.requests.filter((r) => r.operation === 'core#listCustomerCards').map((r) => r.status)).to.deep.equal([200]);
    await checkA11y(page, 'the Customers page with a customer open');
    await clickButton(page, 'Close');
    await page.waitForFunction(() => !document.querySelector('dl[aria-label="Customer wallet"]'));
  });
});
