/**
 * A ledger transaction's page (`#/transactions/<id>`, closed-loop `getTransaction`;
 * `#/transactions/TXN…`, as a payout names its transactions, core `getTransactionDetails`):
 * its facts, its entries, links to the wallets it moved money between and to the
 * transaction it reverses or refunds (or that reverses it), who made it, and its actions.
 */
import { html } from '../preact-htm.js';
import { Id, Money, Table, formatMoney, words } from '../ui.js';
import { When } from '../lists.js';
import { CreatedBy } from '../creator.js';
import { Actions } from './actions.js';
import { ObjectFrame, ObjectHeading } from './frame.js';
import { ObjectLink } from './links.js';

/** The operation that makes a transaction of each type (its creating audit event's `operation_id`). */
const MADE_BY = { FUND: 'createFund', TRANSFER: 'createTransfer', WITHDRAWAL: 'createWithdrawal', REFUND: 'createRefund', REVERSAL: 'createReversal', PAYOUT: 'createPayout', TOPUP: 'createSandboxTopup' };

/** The transaction `id` names: a `TXN` reference or an id. */
const readTransaction = (api, id) => (/^TXN/.test(id) ? api.get(`/transactions/${encodeURIComponent(id)}`) : api.get(`/cl/v1/transactions/${encodeURIComponent(id)}`));

/** An account of the transaction: a link to its wallet's page when it is a wallet, else its number. */
const Account = ({ walletId, number }) => (walletId ? html`<${ObjectLink} kind="wallets" id=${walletId}>${number}</${ObjectLink}>` : (number ?? '—'));

export function TransactionPage({ api, id }) {
  return html`<${ObjectFrame} what="Transaction" load=${() => readTransaction(api, id)} deps=${[api, id]}>
    ${(t, reload) => html`<${ObjectHeading} title=${`${words(t.type)} ${t.reference} · ${formatMoney(t.amount, t.currency)}`} />
      <section class="card" aria-label="Transaction facts">
        <dl class="facts">
          <dt>Transaction</dt><dd><${Id} value=${t.id} label="transaction id" /></dd>
          <dt>Reference</dt><dd>${t.reference}</dd>
          <dt>Type</dt><dd>${words(t.type)}</dd>
          <dt>Status</dt><dd>${words(t.status)}</dd>
          <dt>Amount</dt><dd><${Money} amount=${t.amount} currency=${t.currency} /></dd>
          <dt>From</dt><dd><${Account} walletId=${t.source_wallet_id} number=${t.sender_account_number} /></dd>
          <dt>To</dt><dd><${Account} walletId=${t.destination_wallet_id} number=${t.receiver_account_number} /></dd>
          <dt>Refunded</dt><dd>${t.refunded_amount ? html`<${Money} amount=${t.refunded_amount} currency=${t.currency} />` : '—'}</dd>
          <dt>Original transaction</dt><dd><${ObjectLink} kind="transactions" id=${t.original_transaction_id} /></dd>
          <dt>Reversed by</dt><dd><${ObjectLink} kind="transactions" id=${t.reversal_transaction_id} /></dd>
          <dt>External reference</dt><dd>${t.external_reference ?? '—'}</dd>
          <dt>Notes</dt><dd>${t.notes ?? '—'}</dd>
          <dt>Created</dt><dd><${When} at=${t.created_at} /></dd>
        </dl>
        ${MADE_BY[t.type] ? html`<${CreatedBy} api=${api} id=${t.id} operation=${MADE_BY[t.type]} />` : null}
      </section>
      <${Actions} kind="transactions" api=${api} object=${t} reload=${reload} />
      <section class="card" aria-labelledby="transaction-entries-title">
        <h2 id="transaction-entries-title">Entries</h2>
        <${Table} caption="Ledger entries" rows=${t.entries ?? []} rowKey=${(e) => `${e.account_number}-${e.direction}`} empty="No entries." columns=${[
          { title: 'Account', render: (e) => e.account_number },
          { title: 'Direction', render: (e) => words(e.direction) },
          { title: 'Amount', num: true, render: (e) => html`<${Money} amount=${e.amount} currency=${t.currency} />` },
        ]} />
      </section>`}
  </${ObjectFrame}>`;
}
