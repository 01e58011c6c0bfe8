/**
 * Overview: the signed-in business (`getBusiness`, held by the session) and the balances
 * of its own accounts (`getBusinessAccountBalance`): operational (prefix 1) and payout
 * (prefix 2).
 */
import { html } from '../preact-htm.js';
import { Problem, Table, formatMoney, formatTime, useLoad } from '../ui.js';

function Overview({ api, session }) {
  const { business } = session;
  const balances = useLoad(() => api.get('/business-account/balance'), [api]);
  const accounts = balances.data
    ? [
        { id: 'operational', name: 'Operational account', ...balances.data.operational_account },
        { id: 'payout', name: 'Payout account', ...balances.data.payout_account },
      ]
    : [];
  return html`
    <section aria-labelledby="business-heading">
      <h2 id="business-heading">${business.name}</h2>
      <dl class="facts">
        <dt>Business ID</dt><dd><code>${business.id}</code></dd>
        <dt>Status</dt><dd>${business.status}</dd>
        <dt>Currency</dt><dd>${business.currency}</dd>
        <dt>External reference</dt><dd>${business.external_reference ?? '—'}</dd>
        <dt>Created</dt><dd>${formatTime(business.created_at)}</dd>
      </dl>
    </section>
    <section aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">Accounts</h2>
      <${Problem} error=${balances.error} />
      ${balances.loading && !balances.data ? html`<p role="status">Loading balances…</p>` : null}
      ${balances.data
        ? html`<${Table} caption="Account balances" rows=${accounts} columns=${[
            { key: 'name', title: 'Account' },
            { key: 'account_number', title: 'Account number', render: (a) => html`<code>${a.account_number}</code>` },
            { key: 'balance', title: 'Balance', render: (a) => html`<span class="money">${formatMoney(a.balance, a.currency)}</span>` },
          ]} />
          <p class="muted">As of ${formatTime(balances.data.as_of)}. <button type="button" class="link" onClick=${balances.reload}>Refresh</button></p>`
        : null}
    </section>`;
}

export const page = { id: 'overview', title: 'Overview', sandboxOnly: false, component: Overview };
