/**
 * The corrections of a ledger transaction (closed-loop `Transaction`): reverse it in full
 * (`createReversal`: a `FUND`, `PAYOUT`, `TRANSFER` or `WITHDRAWAL` not reversed yet and
 * without refunds) and refund part or all of a payout (`createRefund`, a `PAYOUT` not
 * reversed, at most its refundable remainder: `amount` less `refunded_amount`, both in the
 * transaction's answer). Both move money (`money:move`) under the review's Idempotency-Key;
 * a reversal always asks for a recent authenticator code, a large refund too (api.js askCode).
 */
import { html } from '../preact-htm.js';
import { Field, Money, formatMoney } from '../ui.js';
import { amountProblem, below, minus, sumOf, typedAmount } from '../amounts.js';
import { Correction, useDone } from './review.js';
import { balanceAfter, operationalAccount, walletWords } from './movement.js';

const CL = '/cl/v1';

/** closed-loop.yaml createReversal: the types a reversal takes. */
const REVERSIBLE = ['FUND', 'PAYOUT', 'TRANSFER', 'WITHDRAWAL'];

/** What can still be refunded of payout transaction `t` (a decimal string), or null when `t` takes no refund. */
export function refundableRemainder(t) {
  if (t.type !== 'PAYOUT' || t.reversal_transaction_id) return null;
  return minus(t.amount, t.refunded_amount);
}

/** The wallet `id` (`getWallet`), or null for none. */
const walletOf = (api, id) => (id ? api.get(`${CL}/wallets/${id}`) : Promise.resolve(null));

/** The fact and warning of `wallet`'s balance after `amount` moves out of it (`out`) or into it. */
const walletAfter = (wallet, amount, out) =>
  balanceAfter({ name: `Wallet ${wallet.account_number}`, balance: wallet.balance, amount, currency: wallet.currency, out, canOverdraft: wallet.can_overdraft });

/** The review of reversing `t`: the money back from its credited account to its debited one. */
async function reversalReview(api, t) {
  const [credited, debited] = await Promise.all([walletOf(api, t.destination_wallet_id), walletOf(api, t.source_wallet_id)]);
  const afters = [credited && walletAfter(credited, t.amount, true), debited && walletAfter(debited, t.amount, false)].filter(Boolean);
  return {
    summary: `Reverse ${t.reference} in full: ${formatMoney(t.amount, t.currency)} back from account ${t.receiver_account_number} to account ${t.sender_account_number}.`,
    facts: [
      ['Transaction', `${t.reference} · ${t.type.toLowerCase()}`],
      ['Amount', html`<${Money} amount=${t.amount} currency=${t.currency} />`],
      ['From', credited ? walletWords(credited) : `Account ${t.receiver_account_number}`],
      ['To', debited ? walletWords(debited) : `Account ${t.sender_account_number}`],
      ...afters.map((a) => a.fact),
      ['Afterwards', `${t.reference} is marked reversed; a reversal cannot be undone. This step asks for a recent authenticator code.`],
    ],
    warnings: afters.map((a) => a.warning).filter(Boolean),
  };
}

/** The review of refunding `amount` of payout `t` from its receiving wallet to the operational account. */
async function refundReview(api, t, amount) {
  const [wallet, operational] = await Promise.all([walletOf(api, t.destination_wallet_id), operationalAccount(api)]);
  const after = wallet && walletAfter(wallet, amount, true);
  return {
    summary: `Refund ${formatMoney(amount, t.currency)} of payout ${t.reference}.`,
    facts: [
      ['Amount', html`<${Money} amount=${amount} currency=${t.currency} />`],
      ['From', wallet ? walletWords(wallet) : `Account ${t.receiver_account_number}`],
      ['To', `Operational account ${operational.account_number}`],
      ...(after ? [after.fact] : []),
      ['Refunded after this', html`<${Money} amount=${sumOf([t.refunded_amount, amount])} currency=${t.currency} /> of <${Money} amount=${t.amount} currency=${t.currency} />`],
      ['Refundable after this', html`<${Money} amount=${minus(refundableRemainder(t), amount)} currency=${t.currency} />`],
    ],
    warnings: after?.warning ? [after.warning] : [],
  };
}

/**
 * The corrections of ledger transaction `transaction` the user may make: Reverse and Refund
 * (each with its review), and the refundable remainder of a payout. `onDone(result)` after
 * one is made. Nothing without `money:move`.
 * @param {{ api: any, transaction: any, onDone?: (result: any) => void }} props
 */
export function TransactionCorrections({ api, transaction: t, onDone }) {
  const { said, onDone: done } = useDone(onDone);
  if (!api.can('money:move')) return null;
  const remainder = refundableRemainder(t);
  const reversible = REVERSIBLE.includes(t.type) && !t.reversal_transaction_id && !below('0.00', t.refunded_amount);
  const refundable = remainder !== null && below('0.00', remainder);
  if (!reversible && remainder === null && !said) return null;
  return html`<div class="corrections" role="group" aria-label=${`Corrections of ${t.reference}`}>
    ${remainder !== null
      ? html`<p class="remainder" data-field="refundable">Refundable: <${Money} amount=${remainder} currency=${t.currency} /> of <${Money} amount=${t.amount} currency=${t.currency} />${' '}
          (refunded so far <${Money} amount=${t.refunded_amount} currency=${t.currency} />).</p>`
      : null}
    ${refundable
      ? html`<${Correction} id=${`refund-${t.id}`} label="Refund" keyed initial=${{ amount: remainder, notes: '' }}
          fields=${(v, set, id) => html`
            <${Field} id=${`${id}-amount`} label=${`Amount to refund (${t.currency})`} value=${v.amount} onInput=${set('amount')} required
              hint=${`At most ${formatMoney(remainder, t.currency)}, the refundable remainder.`} />
            <${Field} id=${`${id}-notes`} label="Notes (optional)" value=${v.notes} onInput=${set('notes')} />`}
          check=${(v) => amountProblem(v.amount) ?? (below(remainder, typedAmount(v.amount)) ? `At most ${formatMoney(remainder, t.currency)} can still be refunded.` : null)}
          review=${(v) => refundReview(api, t, typedAmount(v.amount))}
          send=${(v, key) => api.post(`${CL}/refunds`, { original_transaction_id: t.id, amount: typedAmount(v.amount), ...(v.notes.trim() ? { notes: v.notes.trim() } : {}) }, { idempotencyKey: key })}
          done=${(r) => html`Refunded <${Money} amount=${r.amount} currency=${r.currency} /> of ${r.original_transaction_reference}: <${Money} amount=${r.total_refunded_amount} currency=${r.currency} /> refunded in all.`}
          onDone=${done} />`
      : null}
    ${reversible
      ? html`<${Correction} id=${`reverse-${t.id}`} label="Reverse" danger keyed
          review=${() => reversalReview(api, t)}
          send=${(v, key) => api.post(`${CL}/reversals`, { original_transaction_id: t.id }, { idempotencyKey: key })}
          done=${(r) => html`Reversed: ${r.reference} moved <${Money} amount=${r.amount} currency=${r.currency} /> back.`}
          onDone=${done} />`
      : null}
    ${said}
  </div>`;
}
