/**
 * The business's bulk payouts on the Payouts page (core `listBulkPayouts`, newest first,
 * cursor pages, by creation date), each with its items counted per state; one opened in
 * place shows its counts, its report and the report's CSV (./payouts-bulk.js Batch).
 */
import { html, useEffect, useState } from '../preact-htm.js';
import { Problem, Table, instant, plural, words } from '../ui.js';
import { Batch, STATES } from './payouts-bulk.js';
import { Pager, When, useRequest } from './wallets-view.js';

/** A batch's counts in words, the empty states left out: "2 completed, 1 rejected". */
export function countsText(counts) {
  const parts = STATES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${words(s).toLowerCase()}`);
  return parts.length ? parts.join(', ') : 'No items counted yet';
}

export function BulkPayoutList({ api }) {
  const list = useRequest();
  const [form, setForm] = useState({ from: '', to: '' });
  const [applied, setApplied] = useState(form);
  const [page, setPage] = useState(null);
  const [open, setOpen] = useState(null);
  const query = (filters, cursor) => ({ created_from: instant(filters.from), created_to: instant(filters.to), limit: 20, cursor });
  const load = (filters, cursor) => list.run(async () => setPage(await api.get('/bulk-payouts', { query: query(filters, cursor) })));
  useEffect(() => {
    load(applied);
  }, []);
  const field = (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value });
  const apply = (e) => {
    e.preventDefault();
    setApplied(form);
    setOpen(null);
    load(form);
  };
  // A batch opened, then refreshed: the list row shows the new counts too.
  const replace = (next) => setPage({ ...page, data: page.data.map((b) => (b.bulk_payout_id === next.bulk_payout_id ? next : b)) });
  return html`<section aria-labelledby="bulk-list-title">
    <h2 id="bulk-list-title">Bulk payouts</h2>
    <form class="filters" onSubmit=${apply} aria-label="Bulk payout filters">
      <div class="field"><label for="bulk-from">Created from</label>
        <input id="bulk-from" type="date" value=${form.from} onInput=${field('from')} /></div>
      <div class="field"><label for="bulk-to">Created before</label>
        <input id="bulk-to" type="date" value=${form.to} onInput=${field('to')} /></div>
      <button type="submit" disabled=${list.busy}>Show bulk payouts</button>
    </form>
    <${Problem} error=${list.error} onRetry=${() => load(applied)} />
    ${page
      ? html`<${Table}
          caption="Bulk payouts, newest first"
          rows=${page.data}
          rowKey=${(b) => b.bulk_payout_id}
          empty="No bulk payouts match the filters."
          detail=${(b) =>
            open === b.bulk_payout_id
              ? html`<${Batch} api=${api} batch=${b} onBatch=${replace} idPrefix=${`list-${b.bulk_payout_id}`} />
                  <button type="button" class="secondary" onClick=${() => setOpen(null)}>Close</button>`
              : null}
          columns=${[
            { title: 'Created', render: (b) => html`<${When} at=${b.created_at} />` },
            { title: 'Items', num: true, render: (b) => plural(b.item_count, 'item') },
            { title: 'States', render: (b) => countsText(b.counts) },
            {
              title: 'Report',
              render: (b) => html`<button type="button" class="secondary" aria-expanded=${open === b.bulk_payout_id}
                aria-label=${`Open bulk payout ${b.bulk_payout_id}`} onClick=${() => setOpen(open === b.bulk_payout_id ? null : b.bulk_payout_id)}>Open</button>`,
            },
          ]}
        />
        <${Pager} page=${page} label="Bulk payouts" busy=${list.busy} onFirst=${() => load(applied)} onNext=${(c) => load(applied, c)} />`
      : list.busy
        ? html`<p role="status">Loading bulk payouts…</p>`
        : null}
  </section>`;
}
