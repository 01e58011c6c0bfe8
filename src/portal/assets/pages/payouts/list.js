/**
 * The list of the business's payouts on the Payouts page (core `listCustomerPayouts`, newest
 * first, cursor pages) with the operation's filters (`status`, `created_from`, `created_to`,
 * `external_reference`), saved as CSV with them (`exportPayoutsCsv`), and a payout opened in place:
 * its details, its timeline (../../objects/timeline.js) and a link to its page (../../objects/payout.js).
 */
import { html, useState } from '../../preact-htm.js';
import { Id, instant, Money, Problem, RowToggle, Table, words } from '../../ui.js';
import { LinkedId, ObjectLink, objectHref } from '../../objects/links.js';
import { ObjectTimeline } from '../../objects/timeline.js';
import { CreatedBy } from '../../creator.js';
import { ListPager, PER_PAGE, When, useFilteredList } from '../../lists.js';
import { PayoutCorrections } from '../../corrections/index.js';
import { ExportCsv } from '../../exports.js';

/** shared.yaml PayoutStatus, the `status` filter's values. */
export const PAYOUT_STATES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'];

/** The listCustomerPayouts query of the filter form: only the filters the user set. */
function queryOf(filters, cursor) {
  return {
    status: filters.status || undefined,
    created_from: instant(filters.from),
    created_to: instant(filters.to),
    external_reference: filters.reference.trim() || undefined,
    limit: filters.limit,
    cursor,
  };
}

/** The filter form of `list` (useFilteredList); `onApply` runs before the filters apply. */
function PayoutFilters({ api, list, onApply }) {
  const { form, field } = list;
  const submit = (e) => {
    onApply();
    list.apply(e);
  };
  return html`<form class="filters" onSubmit=${submit} aria-label="Payout filters">
    <div class="field"><label for="payouts-status">Status</label>
      <select id="payouts-status" value=${form.status} onChange=${field('status')}>
        <option value="">Any status</option>
        ${PAYOUT_STATES.map((s) => html`<option value=${s}>${words(s)}</option>`)}
      </select></div>
    <div class="field"><label for="payouts-from">Created from</label>
      <input id="payouts-from" type="date" value=${form.from} onInput=${field('from')} /></div>
    <div class="field"><label for="payouts-to">Created before</label>
      <input id="payouts-to" type="date" value=${form.to} onInput=${field('to')} /></div>
    <div class="field"><label for="payouts-reference">External reference</label>
      <input id="payouts-reference" value=${form.reference} maxlength="128" onInput=${field('reference')} /></div>
    <div class="field"><label for="payouts-limit">Per page</label>
      <select id="payouts-limit" value=${form.limit} onChange=${field('limit')}>
        ${PER_PAGE.map((n) => html`<option value=${n}>${n}</option>`)}
      </select></div>
    <button type="submit" disabled=${list.busy}>Show payouts</button>
    <${ExportCsv} api=${api} path="/payouts.csv" query=${queryOf(list.applied)} filename="payouts.csv" />
  </form>`;
}

/** A payout as getPayoutStatus and listCustomerPayouts answer it; its customer, wallet and transactions link to their pages. */
export function PayoutDetail({ payout }) {
  return html`<dl class="facts" aria-label=${`Payout ${payout.payout_id}`}>
    <dt>Payout</dt><dd><${Id} value=${payout.payout_id} label="payout id" /></dd>
    <dt>Status</dt><dd data-field="status">${words(payout.status)}</dd>
    <dt>Amount</dt><dd><${Money} amount=${payout.payout_amount} currency=${payout.currency} /></dd>
    <dt>Customer</dt><dd><${LinkedId} kind="customers" id=${payout.customer_id} label="customer id" /></dd>
    <dt>Wallet account number</dt><dd><${ObjectLink} kind="wallets" id=${payout.wallet_account_number}>${payout.wallet_account_number}</${ObjectLink}></dd>
    <dt>Purpose</dt><dd>${payout.payout_purpose ?? '—'}</dd>
    <dt>External reference</dt><dd>${payout.external_reference ?? '—'}</dd>
    <dt>Ledger transaction</dt><dd><${ObjectLink} kind="transactions" id=${payout.transaction_id} /></dd>
    <dt>Outcome transaction</dt><dd><${ObjectLink} kind="transactions" id=${payout.outcome_transaction_id} /></dd>
    <dt>Failure</dt><dd>${payout.failure_code ? words(payout.failure_code) : '—'}</dd>
    <dt>Created</dt><dd><${When} at=${payout.created_at} /></dd>
    <dt>Updated</dt><dd><${When} at=${payout.updated_at} /></dd>
  </dl>`;
}

/** A payout opened from the list: its details, who created it, a link to its page, its timeline, and "Close". */
export function OpenPayout({ api, payout, onClose }) {
  return html`<section class="card" aria-label=${`Payout ${payout.payout_id}`}>
    <${PayoutDetail} payout=${payout} />
    <${CreatedBy} api=${api} id=${payout.payout_id} operation="createCustomerPayout" />
    <p><a href=${objectHref('payouts', payout.payout_id)}>Open the payout’s page</a></p>
    <${ObjectTimeline} api=${api} objectId=${payout.payout_id} createdAt=${payout.created_at} label="Payout timeline" level=${3} />
    <${PayoutCorrections} api=${api} payout=${payout} />
    <button type="button" class="secondary" onClick=${onClose}>Close</button>
  </section>`;
}

/** The payouts list with its filters, a payout opened below its row. */
export function PayoutList({ api }) {
  const list = useFilteredList((filters, cursor) => api.get('/payouts/', { query: queryOf(filters, cursor) }), {
    status: '', from: '', to: '', reference: '', limit: '20',
  });
  const [open, setOpen] = useState(null);
  const { page } = list;
  return html`<section aria-labelledby="payout-list-title">
    <h2 id="payout-list-title">All payouts</h2>
    <${PayoutFilters} api=${api} list=${list} onApply=${() => setOpen(null)} />
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${page
      ? html`<${Table}
          caption="Payouts, newest first"
          rows=${page.data}
          rowKey=${(p) => p.payout_id}
          empty="No payouts match the filters."
          detail=${(p) => (open === p.payout_id ? html`<${OpenPayout} api=${api} payout=${p} onClose=${() => setOpen(null)} />` : null)}
          columns=${[
            { title: 'Created', render: (p) => html`<${When} at=${p.created_at} />` },
            { title: 'Status', render: (p) => words(p.status) },
            { title: 'Amount', num: true, render: (p) => html`<${Money} amount=${p.payout_amount} currency=${p.currency} />` },
            { title: 'Wallet', render: (p) => p.wallet_account_number },
            { title: 'External reference', render: (p) => p.external_reference ?? '—' },
            {
              title: 'Timeline',
              render: (p) => html`<${RowToggle} id=${p.payout_id} open=${open} setOpen=${setOpen} label=${`Open payout ${p.payout_id}`} />`,
            },
          ]}
        />
        <${ListPager} list=${list} label="Payouts" />`
      : list.busy
        ? html`<p role="status">Loading payouts…</p>`
        : null}
  </section>`;
}
