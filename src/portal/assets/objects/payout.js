/**
 * A payout's page (`#/payouts/<id>`, core `getPayoutStatus`): its facts with links to its
 * customer, its wallet and its ledger transactions (../pages/payouts/list.js PayoutDetail),
 * who created it, its actions and its timeline.
 */
import { html } from '../preact-htm.js';
import { formatMoney } from '../ui.js';
import { PayoutDetail } from '../pages/payouts/list.js';
import { CreatedBy } from '../creator.js';
import { Actions } from './actions.js';
import { ObjectFrame, ObjectHeading } from './frame.js';
import { ObjectTimeline } from './timeline.js';

/** The title of payout `p`: "Payout 7.81 SAR · CB-7781". */
const titleOf = (p) => `Payout ${formatMoney(p.payout_amount, p.currency)}${p.external_reference ? ` · ${p.external_reference}` : ''}`;

export function PayoutPage({ api, id }) {
  return html`<${ObjectFrame} what="Payout" load=${() => api.get(`/payouts/${encodeURIComponent(id)}`)} deps=${[api, id]}>
    ${(payout, reload) => html`<${ObjectHeading} title=${titleOf(payout)} />
      <section class="card" aria-label="Payout facts">
        <${PayoutDetail} payout=${payout} />
        <${CreatedBy} api=${api} id=${payout.payout_id} operation="createCustomerPayout" />
      </section>
      <${Actions} kind="payouts" api=${api} object=${payout} reload=${reload} />
      <${ObjectTimeline} api=${api} objectId=${payout.payout_id} createdAt=${payout.created_at} label="Payout timeline" />`}
  </${ObjectFrame}>`;
}
