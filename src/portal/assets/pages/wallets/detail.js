/**
 * One wallet on the Wallets page: its details, its ledger transactions (closed-loop
 * `listWalletTransactions`, newest first, cursor pages, by type and creation date) and its
 * statement as a CSV file (`getWalletStatementCsv`, `Accept: text/csv`); who created it (../../creator.js).
 */
import { html, useState } from '../../preact-htm.js';
import { Id, Money, Problem, Table, instant, words } from '../../ui.js';
import { ListPager, When, useFilteredList, useRequest } from '../../lists.js';
import { downloadText } from '../../download.js';
import { CreatedBy } from '../../creator.js';

const CL = '/cl/v1';

/** closed-loop.yaml TransactionType (the `type` filter's values). */
export const TRANSACTION_TYPES = ['TOPUP', 'FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL', 'REFUND', 'REVERSAL', 'CUSTOMER_PAYOUT',
  'CUSTOMER_PAYOUT_COMPLETION', 'CUSTOMER_PAYOUT_RETURN', 'CARD_PURCHASE'];

/** The listWalletTransactions and listTransactions query of the transaction filters. */
export const transactionQuery = (f, cursor) => ({ type: f.type || undefined, created_from: instant(f.from), created_to: instant(f.to), cursor });

/** The filter values of a transaction list, empty. */
export const NO_TRANSACTION_FILTER = { type: '', from: '', to: '' };

/**
 * The transaction filters of `list` (useFilteredList): type and creation dates; `idPrefix` keeps
 * ids unique; `children` (an export's button) follow the submit button.
 */
export function TransactionFilters({ list, idPrefix = 'tx', children }) {
  const { form, field } = list;
  return html`<form class="filters" onSubmit=${list.apply} aria-label="Transaction filters">
    <div class="field"><label for=${`${idPrefix}-type`}>Type</label>
      <select id=${`${idPrefix}-type`} value=${form.type} onChange=${field('type')}>
        <option value="">Any type</option>
        ${TRANSACTION_TYPES.map((t) => html`<option value=${t}>${words(t)}</option>`)}
      </select></div>
    <div class="field"><label for=${`${idPrefix}-from`}>Created from</label>
      <input id=${`${idPrefix}-from`} type="date" value=${form.from} onInput=${field('from')} /></div>
    <div class="field"><label for=${`${idPrefix}-to`}>Created before</label>
      <input id=${`${idPrefix}-to`} type="date" value=${form.to} onInput=${field('to')} /></div>
    <button type="submit" disabled=${list.busy}>Show transactions</button>
    ${children}
  </form>`;
}

/** One wallet's details, its transactions and its statement download; `onClose` closes the panel. */
export function WalletDetail({ api, wallet, onClose }) {
  const statement = useRequest();
  const [saved, setSaved] = useState(null);
  const list = useFilteredList((f, cursor) => api.get(`${CL}/wallets/${wallet.id}/transactions`, { query: transactionQuery(f, cursor) }), NO_TRANSACTION_FILTER);
  const { page } = list;

  async function download() {
    const csv = await statement.run(() => api.text(`${CL}/wallets/${wallet.id}/statement.csv`, { accept: 'text/csv' }));
    if (csv === undefined) return;
    const name = `statement-${wallet.account_number}.csv`;
    downloadText(name, csv);
    setSaved(name);
  }

  return html`<section class="card" aria-labelledby="wallet-detail-title">
    <h2 id="wallet-detail-title">Wallet ${wallet.account_number}</h2>
    <dl class="facts">
      <dt>Wallet</dt><dd><${Id} value=${wallet.id} label="wallet id" /></dd>
      <dt>Name</dt><dd>${wallet.name ?? '—'}</dd>
      <dt>Status</dt><dd>${words(wallet.status)}</dd>
      <dt>Balance</dt><dd><${Money} amount=${wallet.balance} currency=${wallet.currency} /></dd>
      <dt>External reference</dt><dd>${wallet.external_reference ?? '—'}</dd>
      <dt>Created</dt><dd><${When} at=${wallet.created_at} /></dd>
    </dl>
    <${CreatedBy} api=${api} id=${wallet.id} operation="createWallet" />
    <p class="actions">
      <button type="button" onClick=${download} disabled=${statement.busy}>Download statement (CSV)</button>
      <button type="button" class="secondary" onClick=${onClose}>Close</button>
    </p>
    ${saved ? html`<p role="status">Saved ${saved}.</p>` : null}
    <${Problem} error=${statement.error} />
    <h3>Transactions</h3>
    <${TransactionFilters} list=${list} />
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${page
      ? html`<${Table}
          caption="Transactions"
          empty="No transactions match."
          rows=${page.data}
          rowKey=${(t) => t.id}
          columns=${[
            { title: 'Reference', render: (t) => t.reference },
            { title: 'Type', render: (t) => words(t.type) },
            { title: 'Status', render: (t) => words(t.status) },
            { title: 'Direction', render: (t) => words(t.entries?.find((e) => e.account_number === wallet.account_number)?.direction) },
            { title: 'Amount', num: true, render: (t) => html`<${Money} amount=${t.amount} currency=${t.currency} />` },
            { title: 'Created', render: (t) => html`<${When} at=${t.created_at} />` },
          ]}
        />
        <${ListPager} list=${list} label="Transactions" />`
      : null}
  </section>`;
}
