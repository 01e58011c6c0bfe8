/**
 * People in the portal, in headless Chromium, each in a browser context of their own: the
 * owner invites a finance user and a viewer on the Team page (the sandbox shows the
 * invitation's link); each opens the link, chooses a password, adds the TOTP secret to an
 * "authenticator" (otpauth, as an app would), confirms a first code, sees the recovery codes
 * and signs in; the session survives a reload; the viewer's invitation of a user is refused by
 * the service (403 naming keys:manage), as is its listing of the users, and so is its payout,
 * which the finance user sends; and the page shows that problem; the owner changes the
 * viewer's role; a sensitive step past the re-authentication window asks for a code in a
 * dialog; the Audit log page shows the viewer's refusal and the owner's change, each
 * with its actor; sign-out everywhere ends the finance user's session. Every request is a
 * documented operation answered as documented, and axe finds no serious violation.
 */
import { expect } from 'chai';
import type { BrowserContext } from 'puppeteer-core';
import { TOTP } from 'otpauth';
import { checkA11y, mainText, openPortal, retype, showPage, signInWithKeyboard, tabTo, type PortalPage } from '../support/portal.js';
import { clickButton, portalSuiteHooks, tableRows, waitForRow } from '../support/portalPages.js';
import { PASSWORD, type PortalUser } from '../support/portalUsers.js';
import { uniq } from '../support/fixtures.js';
import { get } from '../support/client.js';
import { running } from '../support/service.js';
import { activeCustomer } from '../support/customers.js';
import { topupPayoutAccount } from '../support/payouts.js';

describe('Portal: people (invitations, two-factor sign-in, roles, sessions)', function () {
  this.timeout(180_000);
  let customer: { wallet_account_number: string };
  const suite = portalSuiteHooks('the portal people pages', async (biz) => {
    customer = await activeCustomer(biz.b);
    await topupPayoutAccount(biz.b, '100.00');
  });
  const contexts: BrowserContext[] = [];
  const pages: PortalPage[] = [];
  after(async () => {
    for (const p of pages) await p.close().catch(() => undefined);
    for (const c of contexts) await c.close().catch(() => undefined);
  });

  /** Invites `name` as `role` on the owner's Team page; the link the sandbox shows. */
  async function invite(name: string, role: string): Promise<{ email: string; link: string }> {
    const { page } = suite.portal;
    const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${uniq()}@example.com`;
    await tabTo(page, '#invite-email');
    await retype(page, email);
    await tabTo(page, '#invite-name');
    await retype(page, name);
    await page.select('#invite-role', role);
    await clickButton(page, 'Send invitation');
    await waitForRow(page, 'Users, newest first', email);
    const link = await page.$eval('form [role="status"] a', (a) => (a as HTMLAnchorElement).href);
    return { email, link };
  }

  /** Opens `link` in a fresh browser context, enrols and signs in: the user and its portal. */
  async function enrol(link: string, email: string): Promise<{ user: PortalUser; portal: PortalPage }> {
    const context = await suite.portal.page.browser().createBrowserContext();
    contexts.push(context);
    const portal = await openPortal(context, new URL(link).pathname + new URL(link).hash);
    pages.push(portal);
    const { page } = portal;
    await page.waitForSelector('#new-password');
    await checkA11y(page, 'the invitation: a password');
    await page.type('#new-password', PASSWORD);
    await page.type('#new-password-again', PASSWORD);
    await clickButton(page, 'Continue');
    await page.waitForSelector('#first-code');
    const secret = await page.$eval('main .id code', (c) => c.textContent ?? '');
    const totp = new TOTP({ secret });
    await checkA11y(page, 'the invitation: the authenticator');
    await page.type('#first-code', totp.generate());
    await clickButton(page, 'Confirm');
    await page.waitForSelector('#recovery-title');
    const recoveryCodes = await page.$$eval('.codes code', (cs) => cs.map((c) => c.textContent ?? ''));
    expect(recoveryCodes).to.have.length(10);
    await checkA11y(page, 'the invitation: the recovery codes');
    await clickButton(page, 'Go to sign-in');
    await page.waitForSelector('#email');
    const user = { id: '', email, totp, recoveryCodes };
    await signInWithKeyboard(page, user);
    return { user, portal };
  }

  it('invites a finance user and a viewer who enrol, sign in, keep their session across a reload, and are held to their roles', async () => {
    const owner = suite.portal.page;
    await showPage(owner, 'team', 'Team');
    await waitForRow(owner, 'Users, newest first', suite.biz.owner.email);
    await checkA11y(owner, 'the Team page');
    const nora = await invite('Nora Finance', 'finance');
    const vic = await invite('Vic Viewer', 'viewer');
    expect((await tableRows(owner, 'Users, newest first')).find((r) => r.includes(vic.email))).to.include('Viewer').and.include('Invited');

    const finance = await enrol(nora.link, nora.email);
    const viewer = await enrol(vic.link, vic.email);
    expect(await mainText(finance.portal.page)).to.include('Account balances');
    const header = await viewer.portal.page.$eval('header .who', (el) => (el as HTMLElement).innerText);
    expect(header).to.include('Vic Viewer').and.include('Viewer');

    // The session is a cookie: a reload keeps it.
    await viewer.portal.page.reload({ waitUntil: 'networkidle0' });
    await viewer.portal.page.waitForSelector('nav[aria-label="Portal"]');
    expect(viewer.portal.requests.filter((r) => r.operation === 'core#getPortalSession')).to.have.length(1);

    // The finance user sends a payout on Move money; the viewer's is refused by the service.
    const payOut = async (p: PortalPage, reference: string): Promise<void> => {
      await showPage(p.page, 'move-money', 'Move money');
      await p.page.waitForSelector('#payout-wallet');
      await p.page.type('#payout-wallet', customer.wallet_account_number);
      await p.page.type('#payout-amount', '12.50');
      await p.page.type('#payout-reference', reference);
      await clickButton(p.page, 'Review', 'section[aria-labelledby="payout-title"]');
      await clickButton(p.page, 'Confirm', 'section[aria-labelledby="payout-title"]');
    };
    await payOut(finance.portal, `nora-${uniq()}`);
    await finance.portal.page.waitForSelector('section[aria-labelledby="payout-title"] .done');
    await payOut(viewer.portal, `vic-${uniq()}`);
    await viewer.portal.page.waitForFunction(() => document.querySelector('section[aria-labelledby="payout-title"] [role="alert"]')?.textContent?.includes('payouts:write'));
    expect(viewer.portal.requests.filter((r) => r.operation === 'core#createCustomerPayout').map((r) => r.status)).to.deep.equal([403]);
    expect(finance.portal.requests.filter((r) => r.operation === 'core#createCustomerPayout').map((r) => r.status)).to.deep.equal([200]);
    viewer.portal.consoleErrors.length = 0; // Chromium logs the 403 the test caused.

    // The viewer may neither list the users nor invite one: the service refuses, the page shows its problem.
    await showPage(viewer.portal.page, 'team', 'Team');
    await viewer.portal.page.waitForFunction(() => [...document.querySelectorAll('main [role="alert"]')].some((a) => a.textContent?.includes('keys:manage')));
    await viewer.portal.page.type('#invite-email', `x-${uniq()}@example.com`);
    await viewer.portal.page.type('#invite-name', 'Not allowed');
    await clickButton(viewer.portal.page, 'Send invitation');
    await viewer.portal.page.waitForSelector('form [role="alert"]');
    expect(await viewer.portal.page.$eval('form [role="alert"]', (el) => (el as HTMLElement).innerText)).to.include('keys:manage');
    const refused = viewer.portal.requests.find((r) => r.operation === 'core#invitePortalUser');
    expect(refused?.status).to.equal(403);
    viewer.portal.consoleErrors.length = 0; // Chromium logs the 403 the test caused.

    // The owner makes the viewer support staff.
    await showPage(owner, 'team', 'Team');
    await waitForRow(owner, 'Users, newest first', vic.email);
    await clickButton(owner, 'Manage Vic Viewer');
    await owner.select('select[id^="role-"]', 'support');
    await clickButton(owner, 'Save the role of Vic Viewer');
    await owner.waitForFunction(
      (email) => [...document.querySelectorAll('tr')].some((r) => r.innerText.includes(email) && r.innerText.includes('Support')),
      {},
      vic.email,
    );

    // Eleven minutes after the owner's sign-in, a sensitive step asks for a code: the dialog
    // takes a recovery code, the session is re-authenticated and the invitation is sent.
    await running().db('portal_sessions').where({ user_id: suite.biz.owner.id }).update({ authenticated_at: running().db.raw("CURRENT_TIMESTAMP(3) - interval '11 minutes'") });
    const rita = `rita-${uniq()}@example.com`;
    await owner.type('#invite-email', rita);
    await owner.type('#invite-name', 'Rita Later');
    await clickButton(owner, 'Send invitation');
    await owner.waitForSelector('#reauth-code');
    await checkA11y(owner, 'the code dialog');
    await owner.type('#reauth-code', suite.biz.owner.recoveryCodes[0]);
    await clickButton(owner, 'Confirm', 'form.dialog');
    await waitForRow(owner, 'Users, newest first', rita);
    expect(suite.portal.requests.filter((r) => r.operation === 'core#reauthenticatePortalSession').map((r) => r.status)).to.deep.equal([200]);
    expect(suite.portal.requests.filter((r) => r.operation === 'core#invitePortalUser').map((r) => r.status).slice(-2)).to.deep.equal([403, 201]);
    suite.portal.consoleErrors.length = 0; // Chromium logs the 403 that asked for the code.

    // The audit log says who did each step, the viewer's refusal included.
    const users = await get('/portal-users?limit=100', { token: suite.biz.b.token });
    const vicId = users.body.data.find((u: { email: string }) => u.email === vic.email).id;
    await showPage(owner, 'audit-log', 'Audit log');
    await owner.waitForSelector('table caption');
    await checkA11y(owner, 'the Audit log page');
    await owner.type('#audit-actor', vicId);
    await clickButton(owner, 'Show entries');
    // Only the viewer's entries, the refused invitation among them.
    await owner.waitForFunction(
      (id) => {
        const rows = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === 'Audit log, newest first')?.tBodies[0].rows;
        return !!rows && [...rows].every((r) => r.innerText.includes(id)) && [...rows].some((r) => r.innerText.includes('invitePortalUser'));
      },
      {},
      vicId,
    );
    const refusal = (await tableRows(owner, 'Audit log, newest first')).find((r) => r.includes('invitePortalUser'))!;
    expect(refusal).to.include('User').and.include(vicId).and.include('403').and.include('Forbidden');
    await owner.click('#audit-actor', { clickCount: 3 });
    await owner.keyboard.press('Backspace');
    await owner.type('#audit-operation', 'updatePortalUser');
    await clickButton(owner, 'Show entries');
    // The owner's role change, with the owner as its actor and the viewer as its target.
    await owner.waitForFunction(
      (ownerId, targetId) =>
        [...document.querySelectorAll('tr')].some((r) => ['updatePortalUser', ownerId, targetId, '200'].every((t) => r.innerText.includes(t))),
      {},
      suite.biz.owner.id,
      vicId,
    );
    expect((await tableRows(owner, 'Audit log, newest first')).every((r) => r.includes('updatePortalUser'))).to.equal(true);

    // Sign out everywhere: the finance user's session ends; a reload shows the sign-in form.
    await clickButton(finance.portal.page, 'Sign out everywhere', 'header');
    await finance.portal.page.waitForSelector('#email');
    await finance.portal.page.reload({ waitUntil: 'networkidle0' });
    await finance.portal.page.waitForSelector('#email');
    for (const p of [finance.portal, viewer.portal]) {
      expect(p.undocumented()).to.deep.equal([]);
      expect(await p.contractProblems()).to.deep.equal([]);
    }
  });
});
