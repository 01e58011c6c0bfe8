/**
 * The Actions section of an object page: the corrections of its kind (../corrections/:
 * reverse or refund a transaction, pay a failed payout again, freeze, unfreeze or block a
 * card), each with its review step, its Idempotency-Key and its permission. `reload()` reads
 * the object again after a correction. A wallet's suspension sits in its details
 * (../pages/wallets/detail.js WalletDetail), which the wallet's page shows; a kind without a
 * correction shows no section.
 */
import { html } from '../preact-htm.js';
import { CardCorrections, PayoutCorrections, TransactionCorrections } from '../corrections/index.js';

/** Each kind's corrections, given the object as its page read it. */
const BY_KIND = {
  payouts: ({ api, object, reload }) => html`<${PayoutCorrections} api=${api} payout=${object} onDone=${reload} />`,
  cards: ({ api, object, reload }) => html`<${CardCorrections} api=${api} card=${object} onDone=${reload} />`,
  transactions: ({ api, object, reload }) => html`<${TransactionCorrections} api=${api} transaction=${object} onDone=${reload} />`,
};

/** The Actions section of an object page of `kind`; nothing for a kind without corrections. */
export function Actions({ kind, api, object, reload }) {
  const Corrections = BY_KIND[kind];
  if (!Corrections) return null;
  return html`<section class="card" aria-labelledby="object-actions-title" data-actions=${kind}>
    <h2 id="object-actions-title">Actions</h2>
    <${Corrections} api=${api} object=${object} reload=${reload} />
  </section>`;
}
