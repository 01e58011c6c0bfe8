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

/**
 * Each kind's corrections, given the object as its page read it, and whether any is offered
 * (`offered(object, api)`: the permission the API asks for, and a state that takes one).
 */
const BY_KIND = {
  payouts: {
    offered: (p, api) => p.status === 'FAILED' && api.can('payouts:write'),
    Corrections: ({ api, object, reload }) => html`<${PayoutCorrections} api=${api} payout=${object} onDone=${reload} />`,
  },
  cards: {
    offered: (_card, api) => api.can('cards:write'),
    Corrections: ({ api, object, reload }) => html`<${CardCorrections} api=${api} card=${object} onDone=${reload} />`,
  },
  transactions: {
    offered: (_t, api) => api.can('money:move'),
    Corrections: ({ api, object, reload }) => html`<${TransactionCorrections} api=${api} transaction=${object} onDone=${reload} />`,
  },
};

/** The Actions section of an object page of `kind`; nothing when its kind offers no correction for `object`. */
export function Actions({ kind, api, object, reload }) {
  const entry = BY_KIND[kind];
  if (!entry?.offered(object, api)) return null;
  const { Corrections } = entry;
  return html`<section class="card" aria-labelledby="object-actions-title" data-actions=${kind}>
    <h2 id="object-actions-title">Actions</h2>
    <${Corrections} api=${api} object=${object} reload=${reload} />
  </section>`;
}
