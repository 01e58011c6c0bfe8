/**
 * Overview: the signed-in business (`getBusiness`, held by the session), the balances of its
 * own accounts (`getBusinessAccountBalance`: operational, prefix 1, and payout, prefix 2)
 * each with its last 30 days drawn from the ledger (./history.js), the recent
 * activity (the newest transactions, `listBusinessTransactions`), and an alert naming the
 * webhook endpoints that fail (with why and since when) or are disabled (one request of
 * `listWebhookEndpointHealth`, however many endpoints there are), and the business's
 * default API version (./api-version.js), today's payouts with an alert when any failed
 * (./today.js, one `getPayoutSummary`). Its requests do not grow with the business's
 * endpoints or today's payouts (the 30 days' history reads at most five pages of transactions).
 * Each part loads on its own and offers Retry when it fails.
 */
import { html, useState } from '../../preact-htm.js';
import { Id, Money, Problem, Table, formatMoney, formatTime, plural, useLoad, words } from '../../ui.js';
import { BalanceChart, DAYS, balancePoints, moved, recentTransactions } from './history.js';
import { HEALTH, failureText } from '../webhooks/health.js';
import { ApiVersionSetting } from './api-version.js';
import { BusinessSettings } from './settings.js';
import { PayoutsToday } from './today.js';
import { When } from '../../lists.js';
import { below } from '../../amounts.js';

/** Endpoints shown in the alert. */
const ALERT_LIMIT = 20;

/** The failing and the disabled endpoints (at most ALERT_LIMIT, one request) and whether there are more. */
async function troubledEndpoints(api) {
  const page = await api.get(HEALTH, { query: { needs_attention: true, limit: ALERT_LIMIT } });
  return { endpoints: page.data, more: page.has_more };
}

/** What is wrong with endpoint health `h`, in words. */
function troubleText(h) {
  if (h.state === 'DISABLED') return `disabled${h.endpoint.disabled_reason ? ` (${words(h.endpoint.disabled_reason).toLowerCase()})` : ''} since ${formatTime(h.endpoint.disabled_at)}`;
  return `failing since ${formatTime(h.failing_since)}: ${failureText(h)}`;
}

function EndpointAlert({ api }) {
  const troubled = useLoad(() => troubledEndpoints(api), [api]);
  if (troubled.error) return html`<${Problem} error=${troubled.error} onRetry=${troubled.reload} />`;
  const found = troubled.data?.endpoints ?? [];
  if (!found.length) return null;
  return html`<div class="problem" role="alert">
    <strong>${troubled.data.more ? `More than ${found.length} webhook endpoints are` : plural(found.length, 'webhook endpoint is', 'webhook endpoints are')} failing or disabled</strong>
    <ul>${found.map((h) => html`<li key=${h.endpoint.id}><code>${h.endpoint.url}</code>: ${troubleText(h)}</li>`)}</ul>
    <p><a href="#webhooks">See the Webhooks page</a></p>
  </div>`;
}


function Accounts({ api, threshold, timeZone }) {
  const balances = useLoad(() => api.get('/business-account/balance'), [api]);
  const payout = balances.data?.payout_account;
  const low = payout && threshold !== null && below(payout.balance, threshold);
  const history = useLoad(() => recentTransactions(api), [api]);
  const accounts = balances.data
    ? [
        { id: 'operational', name: 'Operational account', ...balances.data.operational_account },
        { id: 'payout', name: 'Payout account', ...balances.data.payout_account },
      ]
    : [];
  return html`<section aria-labelledby="accounts-heading">
    <h2 id="accounts-heading">Accounts</h2>
    <${Problem} error=${balances.error} onRetry=${balances.reload} />
    ${low ? html`<div class="problem" role="alert"><strong>The payout account is low</strong>
        <p>Its balance, <${Money} amount=${payout.balance} currency=${payout.currency} />, is below the warning threshold of <${Money} amount=${threshold} currency=${payout.currency} />: top it up before payouts fail.</p></div>` : null}
    ${balances.loading && !balances.data ? html`<p role="status">Loading balances…</p>` : null}
    ${balances.data
      ? html`<${Table} caption="Account balances" rows=${accounts} columns=${[
          { key: 'name', title: 'Account' },
          { key: 'account_number', title: 'Account number', render: (a) => html`<code>${a.account_number}</code>` },
          { key: 'balance', title: 'Balance', num: true, render: (a) => html`<${Money} amount=${a.balance} currency=${a.currency} />` },
        ]} />
        <p class="muted">As of ${formatTime(balances.data.as_of)}. <button type="button" class="link" onClick=${() => { balances.reload(); history.reload(); }}>Refresh</button></p>
        <${Problem} error=${history.error} onRetry=${history.reload} />
        ${history.data
          ? html`<div class="tiles">${accounts.map((a) => {
              const points = balancePoints(history.data.transactions, a.account_number, a.balance, history.data.from);
              return html`<figure class="card" key=${a.id}>
                <figcaption>${a.name}: the last ${DAYS} days (${a.currency})</figcaption>
                ${moved(points)
                  ? html`<${BalanceChart} points=${points} from=${history.data.from} timeZone=${timeZone}
                      label=${`${a.name}: ${plural(points.length - 2, 'movement')} in ${DAYS} days, from ${formatMoney(points[0].balance, a.currency)} to ${formatMoney(a.balance, a.currency)}`} />`
                  : html`<p class="muted">No money moved in the last ${DAYS} days: the balance stayed <${Money} amount=${a.balance} currency=${a.currency} />.</p>`}
              </figure>`;
            })}</div>
            ${history.data.partial ? html`<p class="muted">A busy month: the drawing shows its newest 500 transactions.</p>` : null}`
          : null}`
      : null}
  </section>`;
}

function RecentActivity({ api }) {
  const recent = useLoad(() => api.get('/transactions', { query: { limit: 10 } }), [api]);
  return html`<section aria-labelledby="activity-heading">
    <h2 id="activity-heading">Recent activity</h2>
    <${Problem} error=${recent.error} onRetry=${recent.reload} />
    ${recent.data
      ? html`<${Table} caption="The 10 newest transactions" rows=${recent.data.data} empty="No money has moved yet." columns=${[
          { title: 'Created', render: (t) => html`<${When} at=${t.created_at} />` },
          { title: 'Type', render: (t) => words(t.type) },
          { title: 'Status', render: (t) => words(t.status) },
          { title: 'Amount', num: true, render: (t) => html`<${Money} amount=${t.amount} currency=${t.currency} />` },
          { title: 'Reference', render: (t) => t.reference },
        ]} />
        <p><a href="#wallets">Wallets and their transactions</a> · <a href="#payouts">Payouts</a></p>`
      : recent.loading
        ? html`<p role="status">Loading recent activity…</p>`
        : null}
  </section>`;
}

function Overview({ api, session }) {
  const [business, setBusiness] = useState(session.business);
  return html`
    <${EndpointAlert} api=${api} />
    <section aria-labelledby="business-heading">
      <h2 id="business-heading">${business.name}</h2>
      <dl class="facts">
        <dt>Business ID</dt><dd><${Id} value=${business.id} label="business id" /></dd>
        <dt>Status</dt><dd>${words(business.status)}</dd>
        <dt>Currency</dt><dd>${business.currency}</dd>
        <dt>External reference</dt><dd>${business.external_reference ?? '—'}</dd>
        <dt>Created</dt><dd>${formatTime(business.created_at)}</dd>
        <dt>API version</dt><dd><${ApiVersionSetting} api=${api} business=${business} /></dd>
      </dl>
      <${BusinessSettings} api=${api} business=${business} onSaved=${(b) => { Object.assign(session.business, b); setBusiness(b); }} />
    </section>
    ${api.can('payouts:read') ? html`<${PayoutsToday} api=${api} business=${business} />` : null}
    <${Accounts} api=${api} threshold=${business.payout_low_balance_threshold} timeZone=${business.time_zone} />
    <${RecentActivity} api=${api} />`;
}

export const page = { id: 'overview', title: 'Overview', sandboxOnly: false, component: Overview };
