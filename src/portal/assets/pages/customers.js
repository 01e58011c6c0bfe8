/**
 * Customers: the business's customers (core `listCustomers`, newest first, cursor pages,
 * by status and mobile number; saved as CSV by `exportCustomersCsv`) and one opened in place: its details, its wallet
 * (closed-loop `getWallet`), its cards (`listCustomerCards`) and who started its onboarding
 * (../creator.js), with a link to its page (../objects/customer.js). A card is frozen,
 * unfrozen or blocked from here (../corrections/card.js, `changeCardStatus`, no code of the customer); what changes
 * the customer, a card's PIN, activation or replacement needs the customer's one-time code, which only the customer has.
 */
import { html, useState } from '../preact-htm.js';
import { Field, formatTime, Id, Money, Problem, RowToggle, Table, useLoad, words } from '../ui.js';
import { ListPager, When, useFilteredList } from '../lists.js';
import { CreatedBy } from '../creator.js';
import { CardCorrections } from '../corrections/index.js';
import { LinkedId, ObjectLink, objectHref } from '../objects/links.js';
import { ExportCsv } from '../exports.js';

/** core.yaml CustomerStatus. */
const STATES = ['PENDING', 'ACTIVE', 'INACTIVE'];

/** The customer's cards (`listCustomerCards`, newest first), each with its corrections. */
function CustomerCards({ api, customer }) {
  const [open, setOpen] = useState(null);
  const query = (f, cursor) => ({ limit: 20, cursor });
  const cards = useFilteredList((f, cursor) => api.get(`/customers/${customer.id}/cards`, { query: query(f, cursor) }), {});
  return html`<${Problem} error=${cards.error} onRetry=${cards.retry} />
    ${cards.page
      ? html`<${Table}
          caption=${`Cards of ${customer.full_name ?? customer.mobile_number}`}
          rows=${cards.page.data}
          empty="No card issued yet."
          detail=${(c) => (open === c.id ? html`<${CardCorrections} api=${api} card=${c} onDone=${cards.retry} />` : null)}
          columns=${[
            { title: 'Number', render: (c) => `•••• ${c.last_4_digits}` },
            { title: 'Type', render: (c) => words(c.type) },
            { title: 'Status', render: (c) => words(c.status) },
            { title: 'Expires', render: (c) => c.expiry_date },
            { title: 'Card id', render: (c) => html`<${LinkedId} kind="cards" id=${c.id} label="card id" />` },
            { title: 'Replaced by', render: (c) => html`<${ObjectLink} kind="cards" id=${c.replaced_by_card_id} />` },
            ...(api.can('cards:write') ? [{ title: 'Corrections', render: (c) => html`<${RowToggle} id=${c.id} open=${open} setOpen=${setOpen} text="Correct" label=${`Correct card ${c.last_4_digits}`} />` }] : []),
          ]}
        />
        <${ListPager} list=${cards} label="Cards" />`
      : html`<p role="status">Loading cards…</p>`}`;
}

/**
 * A customer's details, its wallet and its cards, each linking to its page (../objects/);
 * "Close" when `onClose` is given (a panel of the list).
 */
export function CustomerDetail({ api, customer, onClose }) {
  const wallet = useLoad(() => (customer.wallet_id ? api.get(`/cl/v1/wallets/${customer.wallet_id}`) : Promise.resolve(null)), [api, customer.wallet_id]);
  return html`<section class="card" aria-label=${`Customer ${customer.full_name ?? customer.mobile_number}`}>
    <dl class="facts">
      <dt>Customer</dt><dd><${Id} value=${customer.id} label="customer id" /></dd>
      <dt>Name</dt><dd>${customer.full_name ?? '—'}</dd>
      <dt>Mobile number</dt><dd>${customer.mobile_number}</dd>
      <dt>Status</dt><dd data-field="customer-status">${words(customer.status)}</dd>
      <dt>Risk rating</dt><dd>${words(customer.risk_rating)}</dd>
      <dt>External reference</dt><dd>${customer.external_reference ?? '—'}</dd>
      <dt>Activated</dt><dd>${formatTime(customer.activated_at)}</dd>
    </dl>
    <${CreatedBy} api=${api} id=${customer.id} operation="startOnboarding" />
    <h3>Wallet</h3>
    <${Problem} error=${wallet.error} onRetry=${wallet.reload} />
    ${wallet.data
      ? html`<dl class="facts" aria-label="Customer wallet">
          <dt>Account number</dt><dd><${ObjectLink} kind="wallets" id=${wallet.data.id}>${wallet.data.account_number}</${ObjectLink}></dd>
          <dt>Status</dt><dd>${words(wallet.data.status)}</dd>
          <dt>Balance</dt><dd><${Money} amount=${wallet.data.balance} currency=${wallet.data.currency} /></dd>
        </dl>`
      : wallet.loading
        ? html`<p role="status">Loading the wallet…</p>`
        : html`<p class="muted">No wallet yet: the customer has not finished onboarding.</p>`}
    <h3>Cards</h3>
    <${CustomerCards} api=${api} customer=${customer} />
    <p class="muted">A card is frozen, unfrozen or blocked here without the customer’s code. Changing the customer, or a card’s PIN, activation or replacement, needs the customer’s one-time code: it is done in the customer’s app.</p>
    ${onClose ? html`<p><a href=${objectHref('customers', customer.id)}>Open the customer’s page</a></p>
      <button type="button" class="secondary" onClick=${onClose}>Close</button>` : null}
  </section>`;
}

function CustomersPage({ api }) {
  const query = (f, cursor) => ({ status: f.status || undefined, mobile_number: f.mobile.trim() || undefined, limit: 20, cursor });
  const list = useFilteredList((f, cursor) => api.get('/customers', { query: query(f, cursor) }), { status: '', mobile: '' });
  const [open, setOpen] = useState(null);
  const { page, form, setForm } = list;
  const apply = (e) => {
    setOpen(null);
    list.apply(e);
  };
  return html`<div>
    <form class="filters" onSubmit=${apply} aria-label="Customer filters">
      <div class="field"><label for="customers-status">Status</label>
        <select id="customers-status" value=${form.status} onChange=${list.field('status')}>
          <option value="">Any status</option>
          ${STATES.map((s) => html`<option value=${s}>${words(s)}</option>`)}
        </select></div>
      <${Field} id="customers-mobile" label="Mobile number" value=${form.mobile} onInput=${(v) => setForm({ ...form, mobile: v })} />
      <button type="submit" disabled=${list.busy}>Show customers</button>
      <${ExportCsv} api=${api} path="/customers.csv" query=${query(list.applied)} filename="customers.csv" />
    </form>
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${page
      ? html`<${Table}
          caption="Customers, newest first"
          rows=${page.data}
          empty="No customers match the filters."
          detail=${(c) => (open === c.id ? html`<${CustomerDetail} api=${api} customer=${c} onClose=${() => setOpen(null)} />` : null)}
          columns=${[
            { title: 'Name', render: (c) => c.full_name ?? '—' },
            { title: 'Mobile number', render: (c) => c.mobile_number },
            { title: 'Status', render: (c) => words(c.status) },
            { title: 'Wallet', render: (c) => c.wallet_account_number ?? '—' },
            { title: 'Created', render: (c) => html`<${When} at=${c.created_at} />` },
            {
              title: 'Details',
              render: (c) => html`<${RowToggle} id=${c.id} open=${open} setOpen=${setOpen} label=${`Open customer ${c.mobile_number}`} />`,
            },
          ]}
        />
        <${ListPager} list=${list} label="Customers" />`
      : list.busy
        ? html`<p role="status">Loading customers…</p>`
        : null}
  </div>`;
}

/** The Customers page of the portal. */
export const page = { id: 'customers', title: 'Customers', sandboxOnly: false, permission: 'customers:read', component: CustomersPage };
