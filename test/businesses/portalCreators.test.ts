/**
 * "Created by" in the portal, in headless Chromium: the owner creates a wallet and a webhook
 * endpoint; an admin, signed in in a browser context of its own, opens each and reads
 * "Created by <the owner's name> · <time>" from the audit log; a wallet whose creating
 * event is gone (as past the log's retention) reads "Creator unknown". Every request is a
 * documented operation answered as documented, with no console error.
 */
import { expect } from 'chai';
import type { BrowserContext, Page } from 'puppeteer-core';
import { checkA11y, openPortal, retype, showPage, signInWithKeyboard, tabTo, type PortalPage } from '../support/portal.js';
import { clickButton, portalSuiteHooks, waitForRow } from '../support/portalPages.js';
import { enrolledUser, type PortalUser } from '../support/portalUsers.js';
import { get } from '../support/client.js';
import { uniq } from '../support/fixtures.js';
import { running } from '../support/service.js';

/** Waits until the panel's "Created by" line reads something containing `text`; its text. */
async function createdBy(page: Page, text: string): Promise<string> {
  await page.waitForFunction((t) => [...document.querySelectorAll('[data-created-by]')].some((p) => p.textContent?.includes(t)), {}, text);
  return page.$eval('[data-created-by]', (p) => p.textContent ?? '');
}

describe('Portal: who created what', function () {
  this.timeout(180_000);
  let admin: PortalUser;
  let ownerName: string;
  const suite = portalSuiteHooks('the portal "Created by" lines', async (biz) => {
    admin = await enrolledUser({ token: biz.b.token }, 'admin', biz.b.token);
    const users = await get('/portal-users?limit=100', { token: biz.b.token });
    ownerName = users.body.data.find((u: { id: string }) => u.id === biz.owner.id).name;
  });
  let context: BrowserContext | undefined;
  let other: PortalPage | undefined;
  after(async () => {
    await other?.close().catch(() => undefined);
    await context?.close().catch(() => undefined);
  });

  it("shows another user the owner's name on the wallet and the endpoint the owner created, and says so when the log has no creating entry", async () => {
    const owner = suite.portal.page;
    const walletName = `Payroll ${uniq()}`;
    await showPage(owner, 'wallets', 'Wallets');
    await tabTo(owner, '#wallet-new-name');
    await retype(owner, walletName);
    await clickButton(owner, 'Create wallet');
    await owner.waitForSelector('#wallet-detail-title');
    expect(await createdBy(owner, 'Created by ')).to.include(ownerName);
    const accountNumber = (await owner.$eval('#wallet-detail-title', (h) => h.textContent ?? '')).replace('Wallet ', '').trim();

    const url = `http://127.0.0.1:9/hooks-${uniq()}`;
    await showPage(owner, 'webhooks', 'Webhooks');
    await owner.type('#endpoint-url', url);
    await owner.click('#new-event-topup\\.complete');
    await clickButton(owner, 'Register endpoint');
    await owner.waitForSelector(`button[aria-label="Manage ${url}"]`);

    context = await owner.browser().createBrowserContext();
    other = await openPortal(context);
    const page = other.page;
    await signInWithKeyboard(page, admin);
    await showPage(page, 'wallets', 'Wallets');
    await waitForRow(page, 'Wallets, newest first', accountNumber);
    await clickButton(page, `Open wallet ${accountNumber}`);
    const line = await createdBy(page, `Created by ${ownerName} · `);
    expect(line).to.match(new RegExp(`^Created by ${ownerName} · \\S`));
    await checkA11y(page, 'a wallet with its creator');

    await showPage(page, 'webhooks', 'Webhooks');
    await page.waitForSelector(`button[aria-label="Manage ${url}"]`);
    await page.click(`button[aria-label="Manage ${url}"]`);
    await createdBy(page, `Created by ${ownerName} · `);

    // The wallet's creating event gone, as an event past the retention is: the panel says so.
    // (The table refuses deletes but the purge's; the test steps around its trigger.)
    const walletId = (await get(`/cl/v1/wallets/lookup?account_number=${accountNumber}`, { token: suite.biz.b.token })).body.id;
    await running().db.transaction(async (trx) => {
      await trx.raw('SET LOCAL session_replication_role = replica');
      await trx('audit_events').where({ business_id: suite.biz.b.id }).whereRaw('? = ANY(target_ids)', [walletId]).del();
    });
    await showPage(page, 'wallets', 'Wallets');
    await waitForRow(page, 'Wallets, newest first', accountNumber);
    await clickButton(page, `Open wallet ${accountNumber}`);
    await createdBy(page, 'Creator unknown: not in the audit log (older than its retention, or made within another request, such as a bulk file’s payouts)');

    await suite.portal.assertClean();
    await other.assertClean();
  });
});
