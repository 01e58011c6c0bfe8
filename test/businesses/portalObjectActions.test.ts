/**
 * Corrections from an object's own page, in headless Chromium at 390 px dark: a card blocked
 * from its page (`#/cards/<id>`, no code of the customer), a payout refunded in part from its
 * ledger transaction's page (`#/transactions/<id>`, the refundable remainder before and after),
 * and a failed payout's page offering "Retry with the same data" where a completed payout's
 * page offers no Actions section. Each change is read back through the API. Every request is
 * a documented operation answered as documented; axe finds no serious violation, nothing is
 * wider than the screen.
 */
import { expect } from 'chai';
import type { Page } from 'puppeteer-core';
import { get, post } from '../support/client.js';
import { credit, newWallet, topup } from '../support/fixtures.js';
import { issuedCard } from '../support/cards.js';
import { createPayout, payoutReaching, topupPayoutAccount } from '../support/payouts.js';
import { assertNoPageOverflow, checkA11y, mainText, setLook } from '../support/portal.js';
import { clickButton, portalSuiteHooks } from '../support/portalPages.js';

/** Opens the object page at `address` and waits for its heading to start with `title`. */
async function open(page: Page, address: string, title: RegExp): Promise<void> {
  await page.evaluate((a) => (window.location.hash = a), address);
  await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('main h1')?.textContent ?? ''), { timeout: 15_000 }, title.source);
}

/** Waits until an element of `selector` shows `text`; the elements' text. */
async function textOf(page: Page, selector: string, text: string): Promise<string> {
  await page.waitForFunction((s, t) => [...document.querySelectorAll(s)].some((el) => (el as HTMLElement).innerText.includes(t)), {}, selector, text);
  return page.$$eval(selector, (els) => els.map((el) => (el as HTMLElement).innerText).join('\n'));
}

describe('Portal: corrections from an object’s page', function () {
  this.timeout(240_000);
  let card: any;
  let payoutTx: any;
  let failed: any;
  let completed: any;
  const suite = portalSuiteHooks('the object pages’ corrections', async (biz) => {
    let customer: any;
    ({ card, customer } = await issuedCard(biz.b));
    const wallet = await newWallet(biz.b.token, { name: 'Payout desk' });
    await topup(biz.b.token, '100.00');
    payoutTx = await credit(biz.b.token, wallet.id, '100.00', 'payouts');
    await topupPayoutAccount(biz.b, '100.00');
    failed = await createPayout(biz.b, { payout_amount: '4.00', customer_id: customer.id });
    const outcome = await post(`/testhelpers/payouts/${failed.payout_id}/outcome`, { status: 'FAILED' }, { token: biz.b.token });
    expect(outcome.status, JSON.stringify(outcome.body)).to.equal(200);
    await payoutReaching(biz.b, failed.payout_id, 'FAILED');
    // `.97` completes in the sandbox.
    completed = await createPayout(biz.b, { payout_amount: '2.97', customer_id: customer.id });
    await payoutReaching(biz.b, completed.payout_id, 'COMPLETED', 60_000);
  });
  const as = () => ({ token: suite.biz.b.token });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  it('blocks a card from its page, without the customer’s code, at 390 px dark', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 390, dark: true });
    await open(page, `#/cards/${card.id}`, /^Card •••• \d{4}$/);
    const group = `[aria-label="Corrections of card •••• ${card.last_4_digits}"]`;
    await page.waitForSelector(`[data-actions="cards"] ${group}`);
    await clickButton(page, 'Block', group);
    await page.waitForSelector(`#block-${card.id}-status`);
    await page.select(`#block-${card.id}-status`, 'LOST');
    await clickButton(page, 'Review', group);
    expect(await textOf(page, `${group} [role="group"]`, 'Block card')).to.include('final, it cannot be unblocked');
    await assertNoPageOverflow(page, 'a card’s block review on its page');
    await checkA11y(page, 'a card’s block review on its page');
    await clickButton(page, 'Confirm', group);
    await page.waitForFunction(() => document.querySelector('main')?.textContent?.includes('is now lost'));
    expect((await get(`/cards/${card.id}`, as())).body.status).to.equal('LOST');
  });

  it('refunds part of a payout from its ledger transaction’s page, showing the remainder, at 390 px dark', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 390, dark: true });
    await open(page, `#/transactions/${payoutTx.id}`, new RegExp(`^Payout ${payoutTx.reference} · 100\\.00 SAR$`));
    const group = `[aria-label="Corrections of ${payoutTx.reference}"][role="group"]`;
    expect(await textOf(page, `${group} [data-field="refundable"]`, 'Refundable')).to.equal('Refundable: 100.00 SAR of 100.00 SAR (refunded so far 0.00 SAR).');
    await clickButton(page, 'Refund', group);
    const amount = `#refund-${payoutTx.id}-amount`;
    await page.waitForSelector(amount);
    await page.$eval(amount, (i) => ((i as HTMLInputElement).value = ''));
    await page.type(amount, '40');
    await clickButton(page, 'Review', group);
    expect(await textOf(page, `${group} [role="group"]`, 'Refundable after this')).to.include('Refund 40.00 SAR of payout').and.include('60.00 SAR');
    await clickButton(page, 'Confirm', group);
    await textOf(page, `${group} .done`, 'Refunded 40.00 SAR');
    // The page reads the transaction again: its refunded amount and what remains.
    expect(await textOf(page, `${group} [data-field="refundable"]`, 'refunded so far 40.00 SAR')).to.include('Refundable: 60.00 SAR of 100.00 SAR');
    expect((await get(`/cl/v1/transactions/${payoutTx.id}`, as())).body.refunded_amount).to.equal('40.00');
    await assertNoPageOverflow(page, 'a refunded payout’s transaction page');
    await checkA11y(page, 'a refunded payout’s transaction page');
  });

  it('offers a failed payout’s retry on its page and no Actions on a completed payout’s page', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 390, dark: true });
    await open(page, `#/payouts/${failed.payout_id}`, /^Payout 4\.00 SAR/);
    await page.waitForSelector(`[data-actions="payouts"] [aria-label="Corrections of payout ${failed.payout_id}"]`);
    expect(await mainText(page)).to.include('Retry with the same data');
    await open(page, `#/payouts/${completed.payout_id}`, /^Payout 2\.97 SAR/);
    await page.waitForSelector('ol.timeline');
    expect(await page.$('[data-actions]')).to.equal(null);
  });
});
