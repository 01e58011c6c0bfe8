/**
 * The portal's Requests page in headless Chromium: an owner finds a request by its request id
 * and by its idempotency key, opens it and reads its bodies with the OTP and the secret
 * redacted; at 1280 and 390 px, light and dark, the requests stack without a sideways scroll
 * and axe finds no serious or critical violation; a viewer is not shown the page. Every
 * request is a documented operation answered as documented.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get, post } from '../support/client.js';
import { LOOKS, assertNoPageOverflow, checkA11y, lookName, mainText, openPortal, retype, setLook, showPage, signInWithKeyboard } from '../support/portal.js';
import { clickButton, portalSuiteHooks } from '../support/portalPages.js';
import { enrolledUser } from '../support/portalUsers.js';
import { uniq } from '../support/fixtures.js';

/** Types `text` into the input `selector` in place of what it held, as a person would (the page sees each input event). */
async function typeInto(page: import('puppeteer-core').Page, selector: string, text: string): Promise<void> {
  await page.focus(selector);
  await retype(page, text);
}

describe('Portal: Requests (the API request log)', function () {
  this.timeout(180_000);
  const requestId = randomUUID();
  const idempotencyKey = `portal-${uniq()}`;
  const suite = portalSuiteHooks('the portal Requests page', async (biz) => {
    // A refused request whose body holds an OTP and a secret, and a wallet made with an idempotency key.
    const refused = await post('/cl/v1/wallets', { name: 'Shown', otp: '482913', client_secret: 'never-shown-secret' }, { token: biz.b.token, headers: { 'x-request-id': requestId } });
    expect(refused.status).to.equal(400);
    const made = await post('/cl/v1/wallets', { name: 'Keyed' }, { token: biz.b.token, idempotencyKey });
    expect(made.status).to.equal(201);
    // Written after the answers: wait until the log shows both.
    for (let i = 0; i < 100; i++) {
      const listed = await get('/api-requests?limit=100', { token: biz.b.token });
      if (listed.body.data?.length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  it('finds a request by request id, opens it with its bodies redacted, and finds another by idempotency key', async () => {
    const { page } = suite.portal;
    await setLook(page, { width: 1280, dark: false });
    await showPage(page, 'requests', 'Requests');
    await page.waitForSelector('ol.requests li');
    await typeInto(page, '#requests-id', requestId);
    await clickButton(page, 'Search');
    await page.waitForFunction(() => document.querySelectorAll('ol.requests li').length === 1);
    expect(await mainText(page)).to.include('POST /cl/v1/wallets').and.include('400 Validation error').and.include('createWallet');
    await clickButton(page, `Bodies of request ${requestId}`);
    await page.waitForSelector('pre[aria-label="Request body"]');
    const bodies = await page.$$eval('pre', (pres) => pres.map((p) => p.textContent ?? ''));
    expect(JSON.parse(bodies[0]!)).to.deep.equal({ name: 'Shown', otp: '[redacted]', client_secret: '[redacted]' });
    expect(JSON.parse(bodies[1]!)).to.include({ status: 400, request_id: requestId });
    expect(await mainText(page)).not.to.include('never-shown-secret').and.not.to.include('482913');
    await checkA11y(page, 'the Requests page with a request open');

    await typeInto(page, '#requests-id', '');
    await typeInto(page, '#requests-key', idempotencyKey);
    await clickButton(page, 'Search');
    await page.waitForFunction((k) => document.querySelectorAll('ol.requests li').length === 1 && document.querySelector('ol.requests')!.textContent!.includes(k), {}, idempotencyKey);
    expect(await mainText(page)).to.include('201').and.include(idempotencyKey);
  });

  for (const look of LOOKS.filter((l) => l.width !== 360)) {
    it(`stacks the requests at ${lookName(look)} without a sideways scroll or a serious accessibility violation`, async () => {
      const { page } = suite.portal;
      await setLook(page, look);
      await page.reload();
      await page.waitForSelector('nav[aria-label="Portal"]');
      await showPage(page, 'requests', 'Requests');
      await page.waitForSelector('ol.requests li');
      await clickButton(page, `Bodies of request ${requestId}`).catch(() => undefined); // when it is on the first page
      await page.waitForNetworkIdle({ idleTime: 300 });
      await assertNoPageOverflow(page, `Requests at ${lookName(look)}`);
      await checkA11y(page, `Requests at ${lookName(look)}`);
      expect(await page.$('main .table-wrap'), 'no table scrolling sideways').to.equal(null);
    });
  }

  it('is not shown to a viewer', async () => {
    const viewer = await enrolledUser({ token: suite.biz.b.token }, 'viewer', suite.biz.b.token);
    const other = await openPortal(suite.portal.page.browser());
    try {
      await setLook(other.page, { width: 1280, dark: false });
      await signInWithKeyboard(other.page, viewer);
      const links = await other.page.$$eval('nav a', (as) => as.map((a) => a.getAttribute('href')));
      expect(links).to.include('#audit-log').and.not.to.include('#requests');
      await other.assertClean();
    } finally {
      await other.close();
    }
  });
});
