/**
 * One wallet on the Wallets page: its details, its ledger transactions (closed-loop
 * `listWalletTransactions`, newest first, cursor pages, by type and creation date) and its
 * statement as a CSV file (`getWalletStatementCsv`, `Accept: text/csv`); who created it (../../creator.js); its corrections
 * and its transactions' (../../corrections/), after which `onChanged(wallet)` gets it as it is now (`getWallet`).
 */
import { html, useState } from '../../preact-htm.js';
import { Id, Money, Problem, RowToggle, Table, instant, words } from '../../ui.js';
import { ListPager, When, useFilteredList, useRequest } from '../../lists.js';
import { downloadText } from '../../download.js';
import { CreatedBy } from '../../creator.js';
import { TransactionCorrections, WalletCorrections } from '../../corrections/index.js';
import { ObjectLink } from '../../objects/links.js';

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

/** One wallet's details, its transactions (each linking to its page) and its statement download; `onClose` (when given) closes the panel. */
export function WalletDetail({ api, wallet, onClose, onChanged }) {
  const statement = useRequest();
  const [open, setOpen] = useState(null);
  const [saved, setSaved] = useState(null);
  const list = useFilteredList((f, cursor) => api.get(`${CL}/wallets/${wallet.id}/transactions`, { query: transactionQuery(f, cursor) }), NO_TRANSACTION_FILTER);
  const { page } = list;
  const changed = async () => {
    list.retry();
    onChanged?.(await api.get(`${CL}/wallets/${wallet.id}`));
  };

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
      <dt>May overdraft</dt><dd data-field="can-overdraft">${wallet.can_overdraft ? 'Yes: its balance may go below zero' : 'No'}</dd>
      <dt>External reference</dt><dd>${wallet.external_reference ?? '—'}</dd>
      <dt>Created</dt><dd><${When} at=${wallet.created_at} /></dd>
    </dl>
    <${CreatedBy} api=${api} id=${wallet.id} operation="createWallet" />
    <${WalletCorrections} api=${api} wallet=${wallet} onDone=${changed} />
    <p class="actions">
      <button type="button" onClick=${download} disabled=${statement.busy}>Download statement (CSV)</button>
      ${onClose ? html`<button type="button" class="secondary" onClick=${onClose}>Close</button>` : null}
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
          detail=${(t) => (open === t.id ? html`<${TransactionCorrections} api=${api} transaction=${t} onDone=${changed} />` : null)}
          columns=${[
            { title: 'Reference', render: (t) => html`<${ObjectLink} kind="transactions" id=${t.id}>${t.reference}</${ObjectLink}>` },
            { title: 'Type', render: (t) => words(t.type) },
            { title: 'Status', render: (t) => words(t.status) },
            { title: 'Direction', render: (t) => words(t.entries?.find((e) => e.account_number === wallet.account_number)?.direction) },
            { title: 'Amount', num: true, render: (t) => html`<${Money} amount=${t.amount} currency=${t.currency} />` },
            { title: 'Created', render: (t) => html`<${When} at=${t.created_at} />` },
            ...(api.can('money:move') ? [{ title: 'Corrections', render: (t) => html`<${RowToggle} id=${t.id} open=${open} setOpen=${setOpen} text="Correct" label=${`Correct ${t.reference}`} />` }] : []),
          ]}
        />
        <${ListPager} list=${list} label="Transactions" />`
      : null}
  </section>`;
}
