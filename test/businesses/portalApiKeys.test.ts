/**
 * The portal's API keys page in headless Chromium: a key created with a role shows its
 * secret once, and that secret takes a token whose key is refused what its role lacks; a
 * roll shows a new secret while the old one keeps working for the overlap chosen; a revoked
 * key's secret takes no token. Every request is a documented operation answered as
 * documented, and axe finds no serious violation.
 */
import { expect } from 'chai';
import { post } from '../support/client.js';
import { checkA11y, showPage } from '../support/portal.js';
import { clickButton, portalSuiteHooks, tableRows, waitForRow } from '../support/portalPages.js';

/** The status of a token request with `clientId` and `secret`. */
async function tokenStatus(clientId: string, secret: string): Promise<number> {
  return (await post('/auth/token', { grant_type: 'client_credentials', client_id: clientId, client_secret: secret })).status;
}

describe('Portal: API keys', function () {
  this.timeout(120_000);
  const suite = portalSuiteHooks('the portal API keys page', async () => undefined);
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  it('creates a viewer key, shows its secret once, rolls it with an overlap and revokes it', async () => {
    const { page, requests } = suite.portal;
    await showPage(page, 'api-keys', 'API keys');
    await waitForRow(page, 'API keys, newest first', 'The business’s first key');
    await checkA11y(page, 'the API keys page');

    await page.type('#key-name', 'Reporting job');
    await page.select('#key-role', 'viewer');
    await clickButton(page, 'Create key');
    await page.waitForSelector('#new-secret-title');
    const shown = await page.$$eval('[role="status"] code', (codes) => codes.map((c) => c.textContent ?? ''));
    const [clientId, secret] = shown;
    expect(await tokenStatus(clientId, secret)).to.equal(200);
    // The key holds the viewer's permissions: a move of money is refused by the service.
    const token = (await post('/auth/token', { grant_type: 'client_credentials', client_id: clientId, client_secret: secret })).body.access_token;
    const refused = await post('/cl/v1/wallets', { name: 'Not allowed' }, { token });
    expect(refused.status).to.equal(403);
    expect(refused.body.detail).to.include('wallets:write');
    await checkA11y(page, 'the API keys page with a new secret');
    await clickButton(page, 'I have copied it');
    await waitForRow(page, 'API keys, newest first', 'Reporting job');
    const row = (await tableRows(page, 'API keys, newest first')).find((r) => r.includes('Reporting job'))!;
    expect(row).to.include('Viewer').and.include('Active').and.include(clientId);

    await clickButton(page, 'Manage Reporting job');
    await page.waitForSelector('select[id^="overlap-"]');
    await page.select('select[id^="overlap-"]', '3600');
    await clickButton(page, 'Roll the secret of Reporting job');
    await page.waitForFunction(() => document.querySelector('#new-secret-title')?.textContent === 'Secret rolled');
    const rolled = await page.$$eval('[role="status"] code', (codes) => codes.map((c) => c.textContent ?? ''));
    expect(rolled[0]).to.equal(clientId);
    expect(rolled[1]).to.not.equal(secret);
    expect(await tokenStatus(clientId, rolled[1])).to.equal(200);
    expect(await tokenStatus(clientId, secret), 'the old secret within the overlap').to.equal(200);
    expect(requests.filter((r) => r.operation === 'core#rollApiKeySecret')).to.have.length(1);

    await clickButton(page, 'I have copied it');
    await clickButton(page, 'Manage Reporting job');
    await clickButton(page, 'Revoke Reporting job');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('table')].some((t) => [...t.tBodies[0].rows].some((r) => r.innerText.includes('Reporting job') && r.innerText.includes('Revoked'))),
    );
    expect(await tokenStatus(clientId, rolled[1])).to.equal(401);
    expect(await tokenStatus(clientId, secret)).to.equal(401);
  });
});
