/**
 * A bulk payout's page (`#/bulk-payouts/<id>`, core `getBulkPayoutStatus`): its counts, its
 * report (`getBatchReport`) with links to its payouts' pages (each with its timeline: a bulk
 * payout's events are its payouts') and their customers', the report's CSV
 * (../pages/payouts/bulk.js Batch), who created it, and its actions.
 */
import { html } from '../preact-htm.js';
import { plural } from '../ui.js';
import { Batch } from '../pages/payouts/bulk.js';
import { CreatedBy } from '../creator.js';
import { Actions } from './actions.js';
import { ObjectFrame, ObjectHeading } from './frame.js';

export function BulkPayoutPage({ api, id }) {
  return html`<${ObjectFrame} what="Bulk payout" load=${() => api.get(`/bulk-payouts/${encodeURIComponent(id)}`)} deps=${[api, id]}>
    ${(batch, reload) => html`<${ObjectHeading} title=${`Bulk payout of ${plural(batch.item_count, 'item')}`} />
      <section class="card" aria-label="Bulk payout facts">
        <${Batch} api=${api} batch=${batch} onBatch=${reload} idPrefix="object" reportShown=${true} />
        <${CreatedBy} api=${api} id=${batch.bulk_payout_id} operation="createBulkPayout" />
      </section>
      <${Actions} kind="bulk-payouts" api=${api} object=${batch} reload=${reload} />`}
  </${ObjectFrame}>`;
}
