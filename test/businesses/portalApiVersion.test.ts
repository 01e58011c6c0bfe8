/**
 * The business's settings in the portal (Overview): the default API version, read from the
 * business and changed with updateBusiness, after which the business's requests without
 * X-API-Version are served at the new version (each webhook endpoint shows its own); the time
 * zone every date is shown in, and the payout account's low-balance warning.
 */
import { expect } from 'chai';
import { get, post, request } from '../support/client.js';
import { checkA11y, showPage } from '../support/portal.js';
import { clickButton, portalSuiteHooks } from '../support/portalPages.js';
import { testSecret } from '../support/webhooks.js';

describe('Portal: the default API version of the business', function () {
  this.timeout(120_000);
  const suite = portalSuiteHooks('the portal API version setting', async () => undefined);
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));
  after(async () => suite.biz && (await request('PATCH', `/cl/v1/businesses/${suite.biz.b.id}`, { body: { api_version: 'v1', time_zone: 'UTC', payout_low_balance_threshold: null }, token: suite.biz.b.token })));

  it('shows the version, changes it to v2, and requests without the header are then served at v2', async () => {
    const { portal, biz } = suite;
    const { page } = portal;
    await showPage(page, 'overview', 'Overview');
    await page.waitForSelector('#api-version option[value="v3"]');
    expect(await page.$eval('#api-version', (el) => (el as HTMLSelectElement).value)).to.equal('v1');
    expect(await page.$$eval('#api-version option', (os) => os.map((o) => o.textContent))).to.deep.equal(['v1 (current)', 'v2', 'v3', 'v4 (recommended)']);
    await page.select('#api-version', 'v2');
    await clickButton(page, 'Save');
    await page.waitForFunction(() => document.querySelector('main [role="status"]')?.textContent?.includes('now use v2'));
    await checkA11y(page, 'the Overview with the version saved');
    expect(portal.requests.filter((r) => r.operation === 'closed-loop#updateBusiness').map((r) => r.method)).to.deep.equal(['PATCH']);
    expect((await get(`/cl/v1/businesses/${biz.b.id}`, { token: biz.b.token })).body.api_version).to.equal('v2');
    const deadline = Date.now() + 6_000;
    let served: string | null = null;
    while (Date.now() < deadline && served !== 'v2') {
      served = (await get('/cl/v1/wallets', { token: biz.b.token })).headers.get('x-api-version');
      if (served !== 'v2') await new Promise((r) => setTimeout(r, 250));
    }
    expect(served, 'a request without X-API-Version').to.equal('v2');
    expect((await get('/cl/v1/wallets', { token: biz.b.token, headers: { 'X-API-Version': 'v3' } })).headers.get('x-api-version')).to.equal('v3');
  });

  it("shows each webhook endpoint's own version", async () => {
    const { portal, biz } = suite;
    const body = { url: 'https://hooks.example.com/portal-version', secret: testSecret(), events: ['topup.complete'], api_version: 'v3' };
    const created = await post('/cl/v1/webhooks/endpoints', body, { token: biz.b.token });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);

    await showPage(portal.page, 'webhooks', 'Webhooks');
    await portal.page.waitForFunction((url) => document.querySelector('main')?.textContent?.includes(url), {}, 'https://hooks.example.com/portal-version');
    await clickButton(portal.page, 'Manage https://hooks.example.com/portal-version');
    await portal.page.waitForFunction(() => [...document.querySelectorAll('dt')].some((dt) => dt.textContent === 'API version'));
    const shown = await portal.page.$$eval('dt', (dts) => dts.find((dt) => dt.textContent === 'API version')?.nextElementSibling?.textContent ?? '');
    expect(shown).to.include('v3');
  });

  it('sets the time zone every date is shown in and the payout account\'s low-balance warning, checking the amount first', async () => {
    const { portal, biz } = suite;
    const { page } = portal;
    await showPage(page, 'overview', 'Overview');
    await page.waitForSelector('#time-zone option[value="Asia/Riyadh"]');
    const created = () => page.$$eval('dt', (dts) => dts.find((dt) => dt.textContent === 'Created')?.nextElementSibling?.textContent ?? '');
    expect(await created()).to.match(/UTC$/);
    expect(await page.$('::-p-text(The payout account is low)')).to.equal(null);
    // An amount the documents would refuse is said in words before anything is sent.
    const updates = () => portal.requests.filter((r) => r.operation === 'closed-loop#updateBusiness').length;
    const before = updates();
    await page.type('#low-balance', '12,5x');
    await clickButton(page, 'Save settings');
    await page.waitForSelector('::-p-text(Enter an amount such as 5000.00)');
    expect(updates()).to.equal(before);
    await page.$eval('#low-balance', (el) => ((el as HTMLInputElement).value = ''));
    await page.type('#low-balance', '1,000,000');
    await page.select('#time-zone', 'Asia/Riyadh');
    await clickButton(page, 'Save settings');
    await page.waitForSelector('::-p-text(Settings saved.)');
    const saved = (await get(`/cl/v1/businesses/${biz.b.id}`, { token: biz.b.token })).body;
    expect(saved).to.include({ time_zone: 'Asia/Riyadh', payout_low_balance_threshold: '1000000.00' });
    await page.waitForSelector('::-p-text(The payout account is low)');
    expect(await created(), 'dates in the business\'s zone').to.match(/GMT\+3$/);
    await checkA11y(page, 'the Overview with a low payout account');
  });
});
