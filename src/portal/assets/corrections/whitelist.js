/**
 * The business's payout whitelist (core Whitelist tag): whether it is enforced
 * (`getPayoutWhitelistEnforcement`, `setPayoutWhitelistEnforcement`), its entries, newest
 * first (`listPayoutWhitelistEntries`), a customer put on it by customer id, wallet account
 * number or mobile number (`addPayoutWhitelistEntries`) and an entry taken off it
 * (`deletePayoutWhitelistEntry`). Reading needs `payouts:read`; each change, reviewed
 * (./review.js), needs `payouts:write` and is not offered without it.
 */
import { html } from '../preact-htm.js';
import { Field, Id, Problem, Table, useLoad } from '../ui.js';
import { ListPager, When, useFilteredList } from '../lists.js';
import { Correction, useDone } from './review.js';

const BASE = '/payout-whitelist';

/** The ways an entry names its customer (core.yaml PayoutWhitelistEntryInput), with their labels. */
const BY = {
  customer_id: 'Customer id',
  walletAccountNumber: 'Wallet account number',
  mobileNumber: 'Mobile number (with the country code)',
};

/** Whether enforcement is on, and its change. */
function Enforcement({ api }) {
  const state = useLoad(() => api.get(`${BASE}/enforcement`), [api]);
  const { said, onDone } = useDone(state.reload);
  if (state.error) return html`<${Problem} error=${state.error} onRetry=${state.reload} />`;
  if (!state.data) return html`<p role="status">Loading the whitelist’s enforcement…</p>`;
  const on = state.data.enforced;
  return html`<p data-field="whitelist-enforced">${on
      ? 'Enforced: payouts to customers who are not on the whitelist are refused.'
      : 'Not enforced: payouts go to any active customer; the whitelist is kept for when it is.'}</p>
    ${api.can('payouts:write')
      ? html`<div class="corrections">
          <${Correction} id="whitelist-enforcement" label=${on ? 'Stop enforcing' : 'Enforce the whitelist'} danger=${on}
            review=${async () => ({
              summary: on ? 'Stop enforcing the payout whitelist.' : 'Enforce the payout whitelist.',
              facts: [['After', on
                ? 'Payouts (single and bulk) go to any active customer again.'
                : 'Payouts (single and bulk) to a customer who is not on the whitelist are refused; payouts already made are not affected.']],
            })}
            send=${(v, key) => api.put(`${BASE}/enforcement`, { enforced: !on }, { idempotencyKey: key })}
            done=${(r) => (r.enforced ? 'The whitelist is enforced.' : 'The whitelist is not enforced.')}
            onDone=${onDone} />
          ${said}
        </div>`
      : null}`;
}

/** The review of putting the customer `v.by` names (`v.value`) on the whitelist. */
const addReview = async (v) => ({
  summary: `Put the customer with ${BY[v.by].toLowerCase().replace(/ \(.*\)$/, '')} ${v.value.trim()} on the payout whitelist.`,
  facts: [['After', 'Payouts to this customer are allowed while the whitelist is enforced; a customer already on it keeps its entry.']],
});

/**
 * The Payout whitelist section: enforcement, entries, add and remove.
 * @param {{ api: any }} props
 */
export function WhitelistManager({ api }) {
  const list = useFilteredList((f, cursor) => api.get(`${BASE}/entries`, { query: { limit: 20, cursor } }), {});
  const write = api.can('payouts:write');
  const { said, onDone } = useDone(list.first);
  return html`<section aria-labelledby="whitelist-title">
    <h2 id="whitelist-title">Payout whitelist</h2>
    <${Enforcement} api=${api} />
    ${write
      ? html`<div class="corrections">
          <${Correction} id="whitelist-add" label="Add a customer" initial=${{ by: 'customer_id', value: '' }}
            fields=${(v, set, id) => html`<div class="field">
                <label for=${`${id}-by`}>Find the customer by</label>
                <select id=${`${id}-by`} value=${v.by} onChange=${(e) => set('by')(e.currentTarget.value)}>
                  ${Object.entries(BY).map(([k, label]) => html`<option value=${k}>${label}</option>`)}
                </select></div>
              <${Field} id=${`${id}-value`} label=${BY[v.by]} value=${v.value} onInput=${set('value')} required />`}
            check=${(v) => (v.value.trim() ? null : `${BY[v.by]} is required.`)}
            review=${addReview}
            send=${(v, key) => api.post(`${BASE}/entries`, { entries: [{ [v.by]: v.value.trim() }] }, { idempotencyKey: key })}
            done=${(r) => `On the whitelist: the customer with mobile number ${r.data[0].mobile_number}.`}
            onDone=${onDone} />
          ${said}
        </div>`
      : null}
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${list.page
      ? html`<${Table}
          caption="Customers on the payout whitelist, newest first"
          rows=${list.page.data}
          rowKey=${(e) => e.entry_id}
          empty="No customer is on the whitelist."
          columns=${[
            { title: 'Customer', render: (e) => html`<${Id} value=${e.customer_id} label="customer id" />` },
            { title: 'Mobile number', render: (e) => e.mobile_number },
            { title: 'Wallet', render: (e) => e.wallet_account_number ?? '—' },
            { title: 'Added', render: (e) => html`<${When} at=${e.created_at} />` },
            ...(write
              ? [{
                  title: 'Remove',
                  render: (e) => html`<div class="corrections">
                    <${Correction} id=${`whitelist-remove-${e.entry_id}`} label=${`Remove ${e.mobile_number}`} danger
                      review=${async () => ({
                        summary: `Take the customer with mobile number ${e.mobile_number} off the payout whitelist.`,
                        facts: [['After', 'While the whitelist is enforced, payouts to this customer are refused; payouts already made are not affected.']],
                      })}
                      send=${(v, key) => api.del(`${BASE}/entries/${e.entry_id}`, { idempotencyKey: key })}
                      done=${() => 'Removed.'}
                      onDone=${onDone} />
                  </div>`,
                }]
              : []),
          ]}
        />
        <${ListPager} list=${list} label="Whitelist entries" />`
      : html`<p role="status">Loading the whitelist…</p>`}
  </section>`;
}
