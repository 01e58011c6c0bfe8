/**
 * People in the portal, in headless Chromium, each in a browser context of their own: the
 * owner invites a finance user and a viewer on the Team page (the sandbox shows the
 * invitation's link); each opens the link, chooses a password, adds the TOTP secret to an
 * "authenticator" (otpauth, as an app would), confirms a first code, sees the recovery codes
 * and signs in; the session survives a reload; each sees only the pages its role may use (the
 * viewer has no Move money and no Team); the finance user sends a payout; the viewer's payout
 * and invitation, sent from its browser with its session as the portal would, are refused by
 * the service (403 naming the permission); the owner changes the
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

  /**
   * Sends `method path body` from `p`'s page as the portal would (its session cookie, its CSRF
   * token, an Idempotency-Key): the status, and whether the problem names `permission`.
   */
  async function sendAs(p: PortalPage, method: string, path: string, body: unknown, permission = 'payouts:write'): Promise<{ status: number; mentions: boolean }> {
    return p.page.evaluate(
      async (m, u, b, perm) => {
        const session = await (await fetch('/portal-sessions/current', { headers: { Accept: 'application/json' } })).json();
        const headers = { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-Token': session.csrf_token, 'Idempotency-Key': crypto.randomUUID() };
        const res = await fetch(u, { method: m, headers, body: JSON.stringify(b) });
        return { status: res.status, mentions: JSON.stringify(await res.json()).includes(perm) };
      },
      method,
      path,
      body,
      permission,
    );
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

    // The portal shows each user only what the role may do: the viewer has no Move money and no Team.
    const navOf = (p: PortalPage) => p.page.$$eval('nav[aria-label="Portal"] a', (as) => as.map((a) => a.textContent));
    expect(await navOf(finance.portal)).to.include('Move money').and.not.include('Team');
    expect(await navOf(viewer.portal)).to.not.include.members(['Move money', 'Team', 'API keys', 'Requests']);

    // The finance user sends a payout on Move money.
    await showPage(finance.portal.page, 'move-money', 'Move money');
    await finance.portal.page.waitForSelector('#payout-wallet');
    await finance.portal.page.type('#payout-wallet', customer.wallet_account_number);
    await finance.portal.page.type('#payout-amount', '12.50');
    await finance.portal.page.type('#payout-reference', `nora-${uniq()}`);
    await clickButton(finance.portal.page, 'Review', 'section[aria-labelledby="payout-title"]');
    await finance.portal.page.waitForSelector('section[aria-labelledby="payout-title"] .confirm');
    await clickButton(finance.portal.page, 'Confirm', 'section[aria-labelledby="payout-title"]');
    await finance.portal.page.waitForSelector('section[aria-labelledby="payout-title"] .done');
    expect(finance.portal.requests.filter((r) => r.operation === 'core#createCustomerPayout').map((r) => r.status)).to.deep.equal([200]);

    // What the portal does not offer, the API refuses: the viewer's own session, sent from its
    // browser as the portal would, may neither send a payout nor invite a user.
    const payout = { wallet_account_number: customer.wallet_account_number, payout_amount: '12.50', external_reference: `vic-${uniq()}` };
    expect(await sendAs(viewer.portal, 'POST', '/payouts/', payout)).to.deep.equal({ status: 403, mentions: true });
    expect(await sendAs(viewer.portal, 'POST', '/portal-users', { email: `x-${uniq()}@example.com`, name: 'Not allowed', role: 'viewer' }, 'keys:manage')).to.deep.equal({ status: 403, mentions: true });
    viewer.portal.consoleErrors.length = 0; // Chromium logs the 403s the test caused.

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
