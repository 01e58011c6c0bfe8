/**
 * A wallet's page (`#/wallets/<id>`, closed-loop `getWallet`; `#/wallets/<account number>`,
 * as a payout names its wallet, `lookupWallet`): its facts, its transactions each linking to
 * its page and its statement (../pages/wallets/detail.js WalletDetail), its actions, and its
 * cards' and payouts' pages through them. Events are recorded about payouts and customers,
 * not wallets: a wallet's steps are its transactions.
 */
import { html } from '../preact-htm.js';
import { WalletDetail } from '../pages/wallets/detail.js';
import { Actions } from './actions.js';
import { ObjectFrame, ObjectHeading } from './frame.js';

/** An account number (closed-loop AccountNumber: 12 digits) rather than an id. */
const ACCOUNT_NUMBER = /^[0-9]{12}$/;

/** The wallet `id` names: by its id, or by its account number. */
export function readWallet(api, id) {
  return ACCOUNT_NUMBER.test(id)
    ? api.get('/cl/v1/wallets/lookup', { query: { account_number: id } })
    : api.get(`/cl/v1/wallets/${encodeURIComponent(id)}`);
}

export function WalletPage({ api, id }) {
  return html`<${ObjectFrame} what="Wallet" load=${() => readWallet(api, id)} deps=${[api, id]}>
    ${(wallet, reload) => html`<${ObjectHeading} title=${`Wallet ${wallet.account_number}${wallet.name ? ` · ${wallet.name}` : ''}`} />
      <${WalletDetail} key=${wallet.id} api=${api} wallet=${wallet} />
      <${Actions} kind="wallets" api=${api} object=${wallet} reload=${reload} />`}
  </${ObjectFrame}>`;
}
