/**
 * The business's bulk payouts on the Payouts page (core `listBulkPayouts`, newest first,
 * cursor pages, by creation date; saved as CSV by `exportBulkPayoutsCsv`), each with its items counted per state; one opened in
 * place shows who created it (../../creator.js), its counts, its report and the report's CSV
 * (./bulk.js Batch).
 */
import { html, useState } from '../../preact-htm.js';
import { instant, plural, Problem, RowToggle, Table, words } from '../../ui.js';
import { Batch, STATES } from './bulk.js';
import { CreatedBy } from '../../creator.js';
import { ListPager, When, useFilteredList } from '../../lists.js';
import { ExportCsv } from '../../exports.js';

/** A batch's counts in words, the empty states left out: "2 completed, 1 rejected". */
export function countsText(counts) {
  const parts = STATES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${words(s).toLowerCase()}`);
  return parts.length ? parts.join(', ') : 'No items counted yet';
}

/** The bulk payouts, newest first, by creation date; one opened below its row. */
export function BulkPayoutList({ api }) {
  const query = (filters, cursor) => ({ created_from: instant(filters.from), created_to: instant(filters.to), limit: 20, cursor });
  const list = useFilteredList((filters, cursor) => api.get('/bulk-payouts', { query: query(filters, cursor) }), { from: '', to: '' });
  const [open, setOpen] = useState(null);
  const { page, form, field } = list;
  const apply = (e) => {
    setOpen(null);
    list.apply(e);
  };
  // A batch opened, then refreshed: the list row shows the new counts too.
  const replace = (next) => list.setPage({ ...page, data: page.data.map((b) => (b.bulk_payout_id === next.bulk_payout_id ? next : b)) });
  return html`<section aria-labelledby="bulk-list-title">
    <h2 id="bulk-list-title">Bulk payouts</h2>
    <form class="filters" onSubmit=${apply} aria-label="Bulk payout filters">
      <div class="field"><label for="bulk-from">Created from</label>
        <input id="bulk-from" type="date" value=${form.from} onInput=${field('from')} /></div>
      <div class="field"><label for="bulk-to">Created before</label>
        <input id="bulk-to" type="date" value=${form.to} onInput=${field('to')} /></div>
      <button type="submit" disabled=${list.busy}>Show bulk payouts</button>
      <${ExportCsv} api=${api} path="/bulk-payouts.csv" query=${query(list.applied)} filename="bulk-payouts.csv" />
    </form>
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${page
      ? html`<${Table}
          caption="Bulk payouts, newest first"
          rows=${page.data}
          rowKey=${(b) => b.bulk_payout_id}
          empty="No bulk payouts match the filters."
          detail=${(b) =>
            open === b.bulk_payout_id
              ? html`<${CreatedBy} api=${api} id=${b.bulk_payout_id} operation="createBulkPayout" />
                  <${Batch} api=${api} batch=${b} onBatch=${replace} idPrefix=${`list-${b.bulk_payout_id}`} />
                  <button type="button" class="secondary" onClick=${() => setOpen(null)}>Close</button>`
              : null}
          columns=${[
            { title: 'Created', render: (b) => html`<${When} at=${b.created_at} />` },
            { title: 'Items', num: true, render: (b) => plural(b.item_count, 'item') },
            { title: 'States', render: (b) => countsText(b.counts) },
            {
              title: 'Report',
              render: (b) => html`<${RowToggle} id=${b.bulk_payout_id} open=${open} setOpen=${setOpen} label=${`Open bulk payout ${b.bulk_payout_id}`} />`,
            },
          ]}
        />
        <${ListPager} list=${list} label="Bulk payouts" />`
      : list.busy
        ? html`<p role="status">Loading bulk payouts…</p>`
        : null}
  </section>`;
}
