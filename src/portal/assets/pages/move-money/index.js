/**
 * Move money: the business's money movements from the portal, each with a confirmation
 * step and an Idempotency-Key per attempt (./action.js). In the sandbox, top-ups of
 * the operational account (closed-loop `createSandboxTopup`) and of the payout account
 * (core `createSandboxPayoutAccountTopup`); everywhere, funding a wallet from the
 * operational account (`createFund`), a transfer between wallets (`createTransfer`) and a
 * payout to a customer's wallet from the payout account (core `createPayout`). The wallets
 * to choose from are the business's 100 newest (`listWallets`).
 */
import { html } from '../../preact-htm.js';
import { Id, Money, Problem, formatMoney, useLoad } from '../../ui.js';
import { MoneyAction, walletLabel } from './action.js';
import { SentForApproval, approvalRequired, needsApproval } from '../payouts/approvals.js';

const CL = '/cl/v1';

/** The wallet `id` among `wallets`, as text. */
const walletText = (wallets, id) => {
  const w = wallets.find((x) => x.id === id);
  return w ? walletLabel(w) : id;
};

/** A ledger transaction answered by a movement, with where to see it. */
const transactionResult = (where, href) => (t) => html`<p>
  Done: <${Money} amount=${t.amount} currency=${t.currency} />, transaction ${t.reference} (${t.status.toLowerCase()}).
  <a href=${href}>${where}</a>
</p>`;

const amountField = { name: 'amount', label: 'Amount', kind: 'amount' };

/**
 * A payout, or, when the business's rules need a second person for it (or the service says so),
 * the same payout sent for approval (`createPayoutApproval`) under the same Idempotency-Key:
 * the payout's refusal comes before its key is used.
 */
async function payoutOrApproval(api, business, body, key) {
  const forApproval = () => api.post('/payout-approvals', { payout: body }, { idempotencyKey: key });
  if (needsApproval(business, [body.payout_amount])) return forApproval();
  try {
    return await api.post('/payouts/', body, { idempotencyKey: key });
  } catch (err) {
    if (approvalRequired(err)) return forApproval();
    throw err;
  }
}

/** The actions of the page; the sandbox's top-ups only in the sandbox. */
function actions(session) {
  const { sandbox, business } = session;
  const list = [
    {
      id: 'fund',
      title: 'Fund a wallet',
      intro: 'From the operational account to one of your wallets.',
      fields: [{ name: 'wallet_id', label: 'Wallet', kind: 'wallet' }, amountField],
      summary: (v, w) => `Fund ${formatMoney(v.amount)} to wallet ${walletText(w, v.wallet_id)}.`,
      send: (api, v, key) => api.post(`${CL}/funds`, { wallet_id: v.wallet_id, amount: v.amount.trim() }, { idempotencyKey: key }),
      result: transactionResult('See it on the Wallets page', '#wallets'),
    },
    {
      id: 'transfer',
      title: 'Transfer between wallets',
      fields: [{ name: 'source_wallet_id', label: 'From wallet', kind: 'wallet' }, { name: 'destination_wallet_id', label: 'To wallet', kind: 'wallet' }, amountField],
      summary: (v, w) => `Transfer ${formatMoney(v.amount)} from ${walletText(w, v.source_wallet_id)} to ${walletText(w, v.destination_wallet_id)}.`,
      send: (api, v, key) =>
        api.post(`${CL}/transfers`, { source_wallet_id: v.source_wallet_id, destination_wallet_id: v.destination_wallet_id, amount: v.amount.trim() }, { idempotencyKey: key }),
      result: transactionResult('See it on the Wallets page', '#wallets'),
    },
    {
      id: 'payout',
      title: 'Send a payout',
      intro: 'From the payout account to a customer’s wallet.',
      fields: [
        { name: 'wallet', label: 'Customer’s wallet account number', kind: 'text', hint: '12 digits' },
        amountField,
        { name: 'purpose', label: 'Purpose (optional)', kind: 'text', optional: true },
        { name: 'reference', label: 'External reference (optional)', kind: 'text', optional: true },
      ],
      summary: (v) =>
        `${needsApproval(business, [v.amount]) ? 'Send for approval: pay' : 'Pay'} out ${formatMoney(v.amount)} to wallet ${v.wallet.trim()}${v.purpose.trim() ? ` for “${v.purpose.trim()}”` : ''}.` +
        (needsApproval(business, [v.amount]) ? ' Your business requires a second person to approve payouts of this amount: it is made once approved.' : ''),
      send: (api, v, key) => {
        const body = { payout_amount: v.amount.trim(), wallet_account_number: v.wallet.trim() };
        if (v.purpose.trim()) body.payout_purpose = v.purpose.trim();
        if (v.reference.trim()) body.external_reference = v.reference.trim();
        return payoutOrApproval(api, business, body, key);
      },
      result: (p) => p.payout_approval_id ? html`<${SentForApproval} approval=${p} />` : html`<p>Payout <${Id} value=${p.payout_id} label="payout id" /> is ${p.status.toLowerCase()}.
        <a href="#payouts">Follow it on the Payouts page</a></p>`,
    },
  ];
  if (!sandbox) return list;
  return [
    {
      id: 'topup',
      title: 'Top up the operational account (sandbox)',
      intro: 'From the sandbox’s settlement account, as a bank transfer in would.',
      fields: [amountField],
      summary: (v) => `Top up the operational account with ${formatMoney(v.amount)}.`,
      send: (api, v, key) => api.post(`${CL}/testhelpers/topups`, { amount: v.amount.trim() }, { idempotencyKey: key }),
      result: transactionResult('See the balance on the Overview', '#overview'),
    },
    {
      id: 'payout-topup',
      title: 'Top up the payout account (sandbox)',
      intro: 'Payouts are paid from the payout account.',
      fields: [amountField],
      summary: (v) => `Top up the payout account with ${formatMoney(v.amount)}.`,
      send: (api, v) => api.post('/testhelpers/payout-account/topups', { amount: v.amount.trim() }),
      result: (t) => html`<p>Done: <${Money} amount=${t.amount} currency=${t.currency} />, transaction ${t.transaction_id}; the payout account holds
        <${Money} amount=${t.balance} currency=${t.currency} />. <a href="#overview">See the Overview</a></p>`,
    },
    ...list,
  ];
}

function MoveMoney({ api, session }) {
  const wallets = useLoad(() => api.get(`${CL}/wallets`, { query: { limit: 100, status: 'ACTIVE' } }), [api]);
  return html`<div>
    <p>Each movement is reviewed before it is sent; what it did is shown with a link to where it is listed.</p>
    <${Problem} error=${wallets.error} onRetry=${wallets.reload} />
    ${wallets.data
      ? html`<div class="moves">${actions(session).map(
          (spec) => html`<${MoneyAction} key=${spec.id} api=${api} spec=${spec} wallets=${wallets.data.data} onDone=${wallets.reload} />`,
        )}</div>`
      : wallets.loading
        ? html`<p role="status">Loading your wallets…</p>`
        : null}
  </div>`;
}

/** The Move money page of the portal. */
export const page = { id: 'move-money', title: 'Move money', sandboxOnly: false, permission: 'money:move', component: MoveMoney };
