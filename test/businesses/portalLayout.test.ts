/**
 * Every page of the business portal as a person sees it, in headless Chromium (harness:
 * test/support/portal.ts), on a laptop (1280 px) and a phone (390 px), light and dark, and on
 * the narrowest phone served (360 px):
 * axe finds no serious or critical violation, the page never scrolls sideways (wide tables
 * scroll inside their box), the phone's navigation folds behind a Menu button, dark mode
 * follows `prefers-color-scheme`, amounts are right-aligned in tabular figures, a Copy button
 * copies, and a load that fails offers Retry. Every request is a documented operation answered as documented.
 * PORTAL_SCREENSHOT_DIR=docs/images writes the pictures of the portal guide (docs/portal.md).
 */
import { expect } from 'chai';
import { activeCustomer } from '../support/customers.js';
import { fundedWallet } from '../support/fixtures.js';
import { LOOKS, assertNoPageOverflow, checkA11y, lookName, openPortal, screenshotFor, setLook, showPage } from '../support/portal.js';
import { clickButton, portalSuiteHooks } from '../support/portalPages.js';
import { createPayout, topupPayoutAccount } from '../support/payouts.js';

/** The portal's pages in the sandbox, as its navigation lists them: [id, title]. */
const PAGES: [string, string][] = [
  ['overview', 'Overview'],
  ['move-money', 'Move money'],
  ['payouts', 'Payouts'],
  ['wallets', 'Wallets'],
  ['customers', 'Customers'],
  ['webhooks', 'Webhooks'],
  ['events', 'Events'],
  ['team', 'Team'],
  ['api-keys', 'API keys'],
  ['requests', 'Requests'],
  ['audit-log', 'Audit log'],
  ['sandbox', 'Sandbox'],
];

/** The pictures of the portal guide this test takes (docs/portal.md): `<page>-<look>`. */
const GUIDE_PICTURES = new Set(['overview-1280-light', 'payouts-1280-light', 'move-money-1280-light', 'customers-1280-light', 'overview-390-dark']);

describe('Portal layout: every page at 1280 and 390 px, light and dark, and at 360 px, in headless Chromium', function () {
  this.timeout(300_000);
  const suite = portalSuiteHooks('the portal layout', async (biz) => {
    const customer = await activeCustomer(biz.b);
    await fundedWallet(biz.b.token, '1234567.89', { name: 'A wallet with a rather long name for a narrow screen' });
    await topupPayoutAccount(biz.b, '500.00');
    await createPayout(biz.b, { payout_amount: '12.97', customer_id: customer.id, external_reference: 'layout-check' });
  });
  afterEach(async () => suite.portal && (await suite.portal.assertClean()));

  for (const look of LOOKS) {
    it(`shows every page at ${lookName(look)} without a page-wide scroll or a serious accessibility violation`, async () => {
      const { page } = suite.portal;
      await setLook(page, look);
      const phone = look.width < 600;
      // The navigation folds behind the Menu button on a phone only.
      const navShown = await page.$eval('#portal-nav', (n) => getComputedStyle(n).display !== 'none');
      expect(navShown, 'the navigation shows without the Menu button').to.equal(!phone);
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).to.equal(look.dark ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
      // The sandbox says so across the whole width, above everything.
      const banner = await page.$eval('.sandbox-banner', (b) => ({ text: (b as HTMLElement).innerText, width: b.getBoundingClientRect().width, top: b.getBoundingClientRect().top }));
      expect(banner.text).to.match(/^Sandbox: test data only/);
      expect(banner.width).to.equal(look.width);
      expect(banner.top).to.equal(0);
      for (const [id, title] of PAGES) {
        await showPage(page, id, title);
        await page.waitForNetworkIdle({ idleTime: 300 });
        const label = `${title} at ${lookName(look)}`;
        await assertNoPageOverflow(page, label);
        if (phone) {
          // A phone stacks a table's rows ("label: value"): no list hides its columns in a sideways scroll.
          const scrolled = await page.$$eval('.table-wrap', (ws) => ws.filter((w) => w.scrollWidth > w.clientWidth + 1).map((w) => w.getAttribute('aria-label')));
          expect(scrolled, `tables scrolling sideways on ${label}`).to.deep.equal([]);
        }
        await checkA11y(page, label);
        if (phone) expect(await page.$eval('#portal-nav', (n) => getComputedStyle(n).display), `the menu folds after choosing ${title}`).to.equal('none');
        if (GUIDE_PICTURES.has(`${id}-${lookName(look)}`)) await screenshotFor(page, `portal-${id}-${lookName(look)}`);
      }
    });
  }

  it('shows the sign-in form on a phone in dark mode without a sideways scroll or a serious violation', async () => {
    const signIn = await openPortal(suite.portal.page.browser());
    try {
      await setLook(signIn.page, { width: 360, dark: true });
      await signIn.page.waitForSelector('#email');
      await assertNoPageOverflow(signIn.page, 'the sign-in form at 360 px, dark');
      await checkA11y(signIn.page, 'the sign-in form at 360 px, dark');
      await signIn.assertClean();
    } finally {
      await signIn.close();
    }
  });

  it('right-aligns amounts in tabular figures with their currency, and draws the accounts’ 30 days', async () => {
    const { page } = suite.portal;
    await setLook(page, LOOKS[0]);
    await showPage(page, 'wallets', 'Wallets');
    await page.waitForSelector('td.num .money');
    const cell = await page.$eval('td.num', (td) => ({ align: getComputedStyle(td).textAlign, figures: getComputedStyle(td).fontVariantNumeric, text: (td as HTMLElement).innerText }));
    expect(cell.align).to.equal('right');
    expect(cell.figures).to.equal('tabular-nums');
    expect(cell.text).to.match(/^[\d,]+\.\d{2} SAR$/);
    await showPage(page, 'overview', 'Overview');
    await page.waitForSelector('svg.chart polyline');
    const labels = await page.$$eval('svg.chart', (svgs) => svgs.map((s) => s.getAttribute('aria-label')));
    expect(labels).to.have.length(2);
    expect(labels[0]).to.match(/^Operational account: \d+ movements? in 30 days, from [\d,.]+ SAR to [\d,.]+ SAR$/);
  });

  it('copies an id with its Copy button', async () => {
    const { page, origin } = suite.portal;
    await page.browserContext().overridePermissions(origin, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    await setLook(page, LOOKS[0]);
    await showPage(page, 'overview', 'Overview');
    // The clipboard takes writes only from the focused page, and the button says what happened
    // for two seconds only: the page is brought to the front, and the button's word is watched
    // from before the click, so that neither another page's focus nor a slow machine decides.
    await page.bringToFront();
    const label = `Copy business id ${suite.biz.b.id}`;
    const said = page.waitForFunction(
      (l) => {
        const word = [...document.querySelectorAll('main button.copy')].find((b) => b.getAttribute('aria-label') === l)?.textContent;
        return word && word !== 'Copy' ? word : false;
      },
      { polling: 'mutation' },
      label,
    );
    await clickButton(page, label);
    expect(await (await said).jsonValue()).to.equal('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(suite.biz.b.id);
  });

  it('says what is wrong with a refused request in words, and offers no Retry that cannot help', async () => {
    const { portal } = suite;
    const { page } = portal;
    await setLook(page, LOOKS[3]);
    await showPage(page, 'payouts', 'Payouts');
    await page.type('#payout-id', 'CB-77');
    await clickButton(page, 'Look up payout');
    await page.waitForSelector('#payout-lookup-title ~ [role="alert"]');
    const shown = await page.$eval('#payout-lookup-title ~ [role="alert"]', (el) => (el as HTMLElement).innerText);
    expect(shown).to.include('Payout id must be an id such as').and.not.include('Retry');
    await checkA11y(page, 'a refused lookup at 390 px, dark');
    // Chromium logs the 400 itself as a failed resource.
    expect(portal.consoleErrors.every((e) => /status of 400/.test(e)), portal.consoleErrors.join('\n')).to.equal(true);
    portal.consoleErrors.length = 0;
  });

  it('offers Retry when a load fails, and loads again with it', async () => {
    const { portal } = suite;
    const { page } = portal;
    await setLook(page, LOOKS[3]);
    await page.setOfflineMode(true);
    await showPage(page, 'customers', 'Customers');
    await page.waitForSelector('main [role="alert"] button');
    expect(await page.$eval('main [role="alert"]', (el) => (el as HTMLElement).innerText)).to.include('The service could not be reached').and.include('Retry');
    await checkA11y(page, 'a failed load at 390 px, dark');
    await page.setOfflineMode(false);
    await clickButton(page, 'Retry');
    await page.waitForFunction(() => document.querySelector('table caption')?.textContent === 'Customers, newest first');
    expect(await page.$('main [role="alert"]')).to.equal(null);
    // The offline fetch is the test's own doing: Chromium logs it as a failed request.
    expect(portal.consoleErrors.length).to.be.greaterThan(0);
    expect(portal.consoleErrors.every((e) => /ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(e)), portal.consoleErrors.join('\n')).to.equal(true);
    portal.consoleErrors.length = 0;
  });
});
