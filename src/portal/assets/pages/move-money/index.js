/**
 * Move money: the business's money movements from the portal, each with a confirmation
 * step and an Idempotency-Key per attempt (./action.js). In the sandbox, top-ups of
 * the operational account (closed-loop `createSandboxTopup`) and of the payout account
 * (core `createSandboxPayoutAccountTopup`); everywhere, funding a wallet from the
 * operational account (`createFund`), a transfer between wallets (`createTransfer`) and a
 * payout to a customer's wallet from the payout account (core `createCustomerPayout`). The wallets
 * to choose from are the business's 100 newest (`listWallets`). Each review reads the
 * balances it shows (`getWallet`, `lookupWallet`, `getBusinessAccountBalance`) and warns when one
 * goes below zero or a payout's external reference was used in the last 24 hours
 * (`listCustomerPayouts`).
 */
import { html } from '../../preact-htm.js';
import { Id, Money, Problem, formatMoney, useLoad } from '../../ui.js';
import { MoneyAction } from './action.js';
import { balanceAfter, operationalAccount, payoutAccount, payoutReview, walletWords } from '../../corrections/movement.js';
import { SentForApproval, approvalRequired, needsApproval } from '../payouts/approvals.js';

const CL = '/cl/v1';

/** The wallet `id` as it is now (`getWallet`): its balance and `can_overdraft` for the review. */
const walletNow = (api, id) => api.get(`${CL}/wallets/${encodeURIComponent(id)}`);

/** A ledger transaction answered by a movement, with where to see it. */
const transactionResult = (where, href) => (t) => html`<p>
  Done: <${Money} amount=${t.amount} currency=${t.currency} />, transaction ${t.reference} (${t.status.toLowerCase()}).
  <a href=${href}>${where}</a>
</p>`;

const amountField = { name: 'amount', label: 'Amount', kind: 'amount' };

/** The review of `amount` into one of the business's own accounts (`account`: getBusinessAccountBalance's), named `name`. */
const accountTopupReview = (name, account, amount) => {
  const after = balanceAfter({ name, balance: account.balance, amount, currency: account.currency, out: false });
  return {
    summary: `Top up the ${name.toLowerCase()} with ${formatMoney(amount, account.currency)}.`,
    facts: [['Amount', html`<${Money} amount=${amount} currency=${account.currency} />`], ['Receiver', `${name} ${account.account_number}`], after.fact],
    warnings: [],
  };
};

/** The review of moving `amount` from `source` (an account of balanceAfter's shape, or a wallet) to wallet `to`. */
function walletMoveReview(verb, amount, source, to) {
  const out = balanceAfter({ ...source, amount, out: true });
  const into = balanceAfter({ name: `Wallet ${to.account_number}`, balance: to.balance, amount, currency: to.currency, out: false, canOverdraft: to.can_overdraft });
  return {
    summary: `${verb} ${formatMoney(amount, to.currency)} to ${walletWords(to)}.`,
    facts: [
      ['Receiver', walletWords(to)],
      ['Amount', html`<${Money} amount=${amount} currency=${to.currency} />`],
      ['From', source.label],
      out.fact,
      into.fact,
    ],
    warnings: [out.warning].filter(Boolean),
  };
}

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
      review: async (api, v) => {
        const [to, from] = await Promise.all([walletNow(api, v.wallet_id), operationalAccount(api)]);
        return walletMoveReview('Fund', v.amount, { ...from, name: 'Operational account', label: `Operational account ${from.account_number}` }, to);
      },
      send: (api, v, key) => api.post(`${CL}/funds`, { wallet_id: v.wallet_id, amount: v.amount }, { idempotencyKey: key }),
      result: transactionResult('See it on the Wallets page', '#wallets'),
    },
    {
      id: 'transfer',
      title: 'Transfer between wallets',
      fields: [{ name: 'source_wallet_id', label: 'From wallet', kind: 'wallet' }, { name: 'destination_wallet_id', label: 'To wallet', kind: 'wallet' }, amountField],
      review: async (api, v) => {
        const [from, to] = await Promise.all([walletNow(api, v.source_wallet_id), walletNow(api, v.destination_wallet_id)]);
        const source = { name: `Wallet ${from.account_number}`, label: walletWords(from), balance: from.balance, currency: from.currency, canOverdraft: from.can_overdraft };
        return walletMoveReview('Transfer', v.amount, source, to);
      },
      send: (api, v, key) =>
        api.post(`${CL}/transfers`, { source_wallet_id: v.source_wallet_id, destination_wallet_id: v.destination_wallet_id, amount: v.amount }, { idempotencyKey: key }),
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
      review: async (api, v) => {
        const to = await api.get(`${CL}/wallets/lookup`, { query: { account_number: v.wallet.trim() } });
        const told = await payoutReview(api, { amount: v.amount, name: to.name, account: to.account_number, purpose: v.purpose, reference: v.reference });
        const approval = needsApproval(business, [v.amount]);
        return {
          ...told,
          summary:
            `${approval ? 'Send for approval: pay' : 'Pay'} out ${formatMoney(v.amount, told.currency)} to ${walletWords(to)}${v.purpose.trim() ? ` for “${v.purpose.trim()}”` : ''}.` +
            (approval ? ' Your business requires a second person to approve payouts of this amount: it is made once approved.' : ''),
        };
      },
      send: (api, v, key) => {
        const body = { payout_amount: v.amount, wallet_account_number: v.wallet.trim() };
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
      review: async (api, v) => accountTopupReview('Operational account', await operationalAccount(api), v.amount),
      send: (api, v, key) => api.post(`${CL}/testhelpers/topups`, { amount: v.amount }, { idempotencyKey: key }),
      result: transactionResult('See the balance on the Overview', '#overview'),
    },
    {
      id: 'payout-topup',
      title: 'Top up the payout account (sandbox)',
      intro: 'Payouts are paid from the payout account.',
      fields: [amountField],
      review: async (api, v) => accountTopupReview('Payout account', await payoutAccount(api), v.amount),
      send: (api, v) => api.post('/testhelpers/payout-account/topups', { amount: v.amount }),
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
