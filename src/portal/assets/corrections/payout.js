/**
 * The correction of a failed payout (core `Payout`): a new payout with the same data
 * (`createCustomerPayout`: the failed payout's customer, amount, purpose and external
 * reference), reviewed with its receiver, the payout account's balance after and the
 * warnings of ./movement.js, under the review's Idempotency-Key. The failed payout stays as
 * it is; its money went back to the payout account when it failed.
 */
import { html } from '../preact-htm.js';
import { Id, formatMoney, words } from '../ui.js';
import { Correction, useDone } from './review.js';
import { payoutReview } from './movement.js';

/** The new payout's request: the failed payout's receiver and data. */
const retryOf = (p) => ({
  customer_id: p.customer_id,
  payout_amount: p.payout_amount,
  ...(p.payout_purpose ? { payout_purpose: p.payout_purpose } : {}),
  ...(p.external_reference ? { external_reference: p.external_reference } : {}),
});

/** The review of paying `p` again: its receiver read now (`getCustomer`), then ./movement.js payoutReview. */
async function retryReview(api, p) {
  const customer = api.can('customers:read') ? await api.get(`/customers/${p.customer_id}`) : null;
  const told = await payoutReview(api, {
    amount: p.payout_amount,
    name: customer?.full_name ?? customer?.mobile_number,
    account: customer?.wallet_account_number ?? p.wallet_account_number,
    purpose: p.payout_purpose,
    reference: p.external_reference,
  });
  return {
    summary: `Pay ${formatMoney(p.payout_amount, p.currency ?? told.currency)} again, as a new payout with the data of failed payout ${p.payout_id}.`,
    facts: [['Original', `Payout ${p.payout_id}, failed (${words(p.failure_code).toLowerCase()}); it stays as it is`], ...told.facts],
    warnings: told.warnings,
  };
}

/**
 * "Retry with the same data" for a FAILED payout, when the user holds `payouts:write`;
 * nothing otherwise. `onDone(payout)` with the new payout.
 * @param {{ api: any, payout: any, onDone?: (payout: any) => void }} props
 */
export function PayoutCorrections({ api, payout, onDone }) {
  const { said, onDone: done } = useDone(onDone);
  if (!said && (payout.status !== 'FAILED' || !api.can('payouts:write'))) return null;
  return html`<div class="corrections" role="group" aria-label=${`Corrections of payout ${payout.payout_id}`}>
    ${payout.status === 'FAILED' && !said ? html`<${Correction} id=${`retry-${payout.payout_id}`} label="Retry with the same data" keyed
      review=${() => retryReview(api, payout)}
      send=${(v, key) => api.post('/payouts/', retryOf(payout), { idempotencyKey: key })}
      done=${(p) => html`New payout <${Id} value=${p.payout_id} label="payout id" /> is ${p.status.toLowerCase()}; it retries payout ${payout.payout_id}.`}
      onDone=${done} />` : null}
    ${said}
  </div>`;
}
