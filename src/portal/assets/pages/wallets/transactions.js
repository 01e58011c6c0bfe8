/**
 * The Wallets page's search across all the business's wallets: its ledger transactions
 * (closed-loop `listTransactions`, newest first, cursor pages) by type and creation date,
 * each with the accounts it moved money between and a link to its page; saved as CSV with the
 * same filters (`exportTransactionsCsv`).
 */
import { html } from '../../preact-htm.js';
import { Money, Problem, Table, words } from '../../ui.js';
import { NO_TRANSACTION_FILTER, TransactionFilters, transactionQuery } from './detail.js';
import { ListPager, When, useFilteredList } from '../../lists.js';
import { ObjectLink } from '../../objects/links.js';
import { ExportCsv } from '../../exports.js';

export function BusinessTransactions({ api }) {
  const list = useFilteredList((f, cursor) => api.get('/cl/v1/transactions', { query: transactionQuery(f, cursor) }), NO_TRANSACTION_FILTER);
  return html`<section aria-labelledby="all-transactions-title">
    <h2 id="all-transactions-title">Transactions of all wallets</h2>
    <${TransactionFilters} list=${list} idPrefix="all-tx">
      <${ExportCsv} api=${api} path="/cl/v1/transactions.csv" query=${transactionQuery(list.applied)} filename="transactions.csv" />
    <//>
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${list.page
      ? html`<${Table}
          caption="Transactions of all wallets, newest first"
          empty="No transactions match."
          rows=${list.page.data}
          columns=${[
            { title: 'Created', render: (t) => html`<${When} at=${t.created_at} />` },
            { title: 'Reference', render: (t) => html`<${ObjectLink} kind="transactions" id=${t.id}>${t.reference}</${ObjectLink}>` },
            { title: 'Type', render: (t) => words(t.type) },
            { title: 'From', render: (t) => t.sender_account_number },
            { title: 'To', render: (t) => t.receiver_account_number },
            { title: 'Amount', num: true, render: (t) => html`<${Money} amount=${t.amount} currency=${t.currency} />` },
          ]}
        />
        <${ListPager} list=${list} label="Transactions of all wallets" />`
      : list.busy
        ? html`<p role="status">Loading transactions…</p>`
        : null}
  </section>`;
}
