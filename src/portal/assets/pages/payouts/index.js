/**
 * Payouts page: the business's payouts with filters and each payout's timeline
 * (./list.js, core `listCustomerPayouts`), its bulk payouts with their counts and
 * reports (./bulk-list.js, `listBulkPayouts`), a payout looked up by its id
 * (`getPayoutStatus`; a payout's own page is ../../objects/payout.js), a bulk
 * payout from a CSV file (./bulk.js), and the payout whitelist (../../corrections/whitelist.js);
 * first, the payouts waiting for a second person's approval (./approvals.js).
 */
import { html, useState } from '../../preact-htm.js';
import { PayoutApprovals } from './approvals.js';
import { BulkPayout } from './bulk.js';
import { BulkPayoutList } from './bulk-list.js';
import { OpenPayout, PayoutList } from './list.js';
import { Field, Problem } from '../../ui.js';
import { useRequest } from '../../lists.js';
import { WhitelistManager } from '../../corrections/index.js';

function PayoutLookup({ api }) {
  const lookup = useRequest();
  const [id, setId] = useState('');
  const [payout, setPayout] = useState(null);

  async function open(payoutId) {
    setPayout(null);
    const found = await lookup.run(() => api.get(`/payouts/${encodeURIComponent(payoutId.trim())}`));
    if (found) setPayout(found);
  }
  const find = (event) => {
    event.preventDefault();
    open(id);
  };

  return html`<section aria-labelledby="payout-lookup-title">
    <h2 id="payout-lookup-title">Payout by id</h2>
    <form onSubmit=${find}>
      <${Field} id="payout-id" label="Payout id" required value=${id} onInput=${setId} />
      <button type="submit" disabled=${lookup.busy}>Look up payout</button>
    </form>
    <${Problem} error=${lookup.error} />
    ${payout ? html`<${OpenPayout} api=${api} payout=${payout} onClose=${() => setPayout(null)} />` : null}
  </section>`;
}

function PayoutsPage({ api, session }) {
  return html`<div>
    <${PayoutApprovals} api=${api} session=${session} />
    <${PayoutList} api=${api} />
    <${BulkPayoutList} api=${api} />
    <${PayoutLookup} api=${api} />
    <${WhitelistManager} api=${api} />
    ${api.can('payouts:write') ? html`<${BulkPayout} api=${api} business=${session.business} />` : null}
  </div>`;
}

/** The Payouts page of the portal. */
export const page = { id: 'payouts', title: 'Payouts', sandboxOnly: false, permission: 'payouts:read', component: PayoutsPage };
