/**
 * Payouts page: a payout to a customer looked up by its id (core `getPayoutStatus`: its
 * state, amount, receiver, ledger references and failure code), and a bulk payout from a
 * CSV file (payouts-bulk.js).
 */
import { html, useState } from '../preact-htm.js';
import { BulkPayout } from './payouts-bulk.js';
import { Field, Problem, formatMoney } from '../ui.js';
import { When, useRequest } from './wallets-view.js';

/** A payout as getPayoutStatus answers it. */
export function PayoutDetail({ payout }) {
  return html`<dl aria-label=${`Payout ${payout.payout_id}`}>
    <dt>Payout</dt><dd><code>${payout.payout_id}</code></dd>
    <dt>Status</dt><dd data-field="status">${payout.status}</dd>
    <dt>Amount</dt><dd>${formatMoney(payout.payout_amount, payout.currency)}</dd>
    <dt>Customer</dt><dd><code>${payout.customer_id}</code></dd>
    <dt>Wallet account number</dt><dd>${payout.wallet_account_number ?? '—'}</dd>
    <dt>Purpose</dt><dd>${payout.payout_purpose ?? '—'}</dd>
    <dt>External reference</dt><dd>${payout.external_reference ?? '—'}</dd>
    <dt>Ledger transaction</dt><dd>${payout.transaction_id ?? '—'}</dd>
    <dt>Outcome transaction</dt><dd>${payout.outcome_transaction_id ?? '—'}</dd>
    <dt>Failure code</dt><dd>${payout.failure_code ?? '—'}</dd>
    <dt>Created</dt><dd><${When} at=${payout.created_at} /></dd>
    <dt>Updated</dt><dd><${When} at=${payout.updated_at} /></dd>
  </dl>`;
}

function PayoutLookup({ api }) {
  const lookup = useRequest();
  const [id, setId] = useState('');
  const [payout, setPayout] = useState(null);

  async function find(event) {
    event.preventDefault();
    setPayout(null);
    const found = await lookup.run(() => api.get(`/payouts/${encodeURIComponent(id.trim())}`));
    if (found) setPayout(found);
  }

  return html`<section aria-labelledby="payout-lookup-title">
    <h2 id="payout-lookup-title">Payout status</h2>
    <form onSubmit=${find}>
      <${Field} id="payout-id" label="Payout id" required value=${id} onInput=${setId} />
      <button type="submit" disabled=${lookup.busy}>Look up payout</button>
    </form>
    <${Problem} error=${lookup.error} />
    ${payout ? html`<${PayoutDetail} payout=${payout} />` : null}
  </section>`;
}

function PayoutsPage({ api }) {
  return html`<div>
    <${PayoutLookup} api=${api} />
    <${BulkPayout} api=${api} />
  </div>`;
}

/** The Payouts page of the portal. */
export const page = { id: 'payouts', title: 'Payouts', sandboxOnly: false, component: PayoutsPage };
