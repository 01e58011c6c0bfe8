/**
 * The corrections of a wallet (closed-loop `Wallet`), by closed-loop `updateWallet`
 * (`wallets:write`): suspend an `ACTIVE` wallet, reactivate a `SUSPENDED` one. A `CLOSED`
 * wallet is final and takes none. While suspended, the service refuses every movement in or
 * out of it (422 `WALLET_NOT_ACTIVE`); its balance stays.
 */
import { html } from '../preact-htm.js';
import { Money, words } from '../ui.js';
import { Correction, useDone } from './review.js';

/** The wallet as words: "Wallet 900000000019 (Payroll)". */
const walletName = (w) => `Wallet ${w.account_number}${w.name ? ` (${w.name})` : ''}`;

/**
 * Suspend or Reactivate for `wallet`, as its status allows, when the user holds
 * `wallets:write`; nothing otherwise. `onDone(wallet)` with the wallet as it is now.
 * @param {{ api: any, wallet: any, onDone?: (wallet: any) => void }} props
 */
export function WalletCorrections({ api, wallet, onDone }) {
  const { said, onDone: done } = useDone(onDone);
  if (!api.can('wallets:write') || !['ACTIVE', 'SUSPENDED'].includes(wallet.status)) return null;
  const suspend = wallet.status === 'ACTIVE';
  const next = suspend ? 'SUSPENDED' : 'ACTIVE';
  const balance = html`<${Money} amount=${wallet.balance} currency=${wallet.currency} />`;
  return html`<div class="corrections" role="group" aria-label=${`Corrections of wallet ${wallet.account_number}`}>
    <${Correction} id=${`wallet-status-${wallet.id}`} label=${suspend ? 'Suspend wallet' : 'Reactivate wallet'} danger=${suspend}
      review=${async () => ({
        summary: `${suspend ? 'Suspend' : 'Reactivate'} ${walletName(wallet)}.`,
        facts: [
          ['Now', words(wallet.status)],
          ['After', suspend
            ? 'Suspended: the service refuses every movement in or out of it until it is reactivated.'
            : 'Active: money moves in and out of it again.'],
          ['Balance', html`${balance} (it stays as it is)`],
        ],
      })}
      send=${(v, key) => api.patch(`/cl/v1/wallets/${wallet.id}`, { status: next }, { idempotencyKey: key })}
      done=${(w) => `${walletName(w)} is now ${words(w.status).toLowerCase()}.`}
      onDone=${done} />
    ${said}
  </div>`;
}
