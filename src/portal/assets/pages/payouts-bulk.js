/**
 * The bulk payout part of the Payouts page: a CSV file read in the browser, its preview
 * (payouts-csv.js: the rows the service will reject for their values, and what makes the
 * whole file unsendable), then core `createBulkPayout` under an idempotency key made with the
 * preview (sending the same file again is answered with the same batch), the batch's counts
 * (`getBulkPayoutStatus`), its report (`getBatchReport`) and the report as a CSV file
 * (`getBatchReportCsv`).
 *
 * Every data row is sent, rejected ones included, as the service takes them: each is
 * rejected alone and recorded in the report under its row's `item_index`, so the report
 * lines up with the file.
 */
import { html, useState } from '../preact-htm.js';
import { bulkPreview, ITEM_FIELDS } from './payouts-csv.js';
import { downloadText } from './wallets-download.js';
import { Problem, Table, formatMoney } from '../ui.js';
import { When, useRequest } from './wallets-view.js';

const STATES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'];

/** The receiver a row names, as the file gives it. */
const receiverOf = (item) => item.customer_id ?? item.walletAccountNumber ?? item.mobileNumber ?? '—';

/** The preview of a read file: its problems, or each row with what the service will do. */
function Preview({ preview }) {
  const rejected = preview.rows.filter((r) => r.rejection).length;
  return html`<section aria-labelledby="bulk-preview-title">
    <h3 id="bulk-preview-title">Preview of ${preview.fileName}</h3>
    ${preview.fileProblems.length > 0
      ? html`<div role="alert" class="problem">
          <strong>The service would refuse this file as a whole; fix it and choose it again.</strong>
          <ul>${preview.fileProblems.map((p) => html`<li>${p}</li>`)}</ul>
        </div>`
      : html`<p role="status">
          ${preview.rows.length} rows: ${rejected} will be rejected for their values (shown below), the others are checked by the service
          (customer, whitelist, funds) when the file is sent.
        </p>`}
    <${Table}
      caption="Rows of the file"
      rows=${preview.rows}
      rowKey=${(r) => String(r.index)}
      columns=${[
        { title: 'Item', render: (r) => r.index },
        { title: 'Line', render: (r) => r.line },
        { title: 'Amount', render: (r) => r.item.payout_amount ?? '—' },
        { title: 'Receiver', render: (r) => receiverOf(r.item) },
        { title: 'External reference', render: (r) => r.item.external_reference ?? '—' },
        {
          title: 'Preview',
          render: (r) => (r.rejection ? html`<span class="rejected">Rejected: ${r.rejection.detail}</span>` : 'To be checked by the service'),
        },
      ]}
    />
  </section>`;
}

/** A sent batch: its counts, its report and the report's download. */
function Batch({ api, batch, onBatch }) {
  const status = useRequest();
  const report = useRequest();
  const csv = useRequest();
  const [rows, setRows] = useState(null);
  const [saved, setSaved] = useState(null);
  const id = batch.bulk_payout_id;

  const refresh = async () => {
    const next = await status.run(() => api.get(`/bulk-payouts/${id}`));
    if (next) onBatch(next);
  };
  const showReport = () => report.run(async () => setRows((await api.get(`/bulk-payouts/${id}/report`)).data));
  async function download() {
    const text = await csv.run(() => api.text(`/bulk-payouts/${id}/report.csv`, { accept: 'text/csv' }));
    if (text === undefined) return;
    const name = `bulk-payout-${id}.csv`;
    downloadText(name, text);
    setSaved(name);
  }

  return html`<section aria-labelledby="bulk-batch-title">
    <h3 id="bulk-batch-title">Bulk payout <code>${id}</code></h3>
    <p>${batch.item_count} items, created <${When} at=${batch.created_at} />.</p>
    <table>
      <caption>Items per state</caption>
      <thead><tr>${STATES.map((s) => html`<th scope="col">${s}</th>`)}</tr></thead>
      <tbody><tr>${STATES.map((s) => html`<td data-state=${s}>${batch.counts[s]}</td>`)}</tr></tbody>
    </table>
    <p>
      <button type="button" onClick=${refresh} disabled=${status.busy}>Refresh status</button>
      ${' '}<button type="button" onClick=${showReport} disabled=${report.busy}>Show report</button>
      ${' '}<button type="button" onClick=${download} disabled=${csv.busy}>Download report (CSV)</button>
    </p>
    ${saved ? html`<p role="status">Saved ${saved}.</p>` : null}
    <${Problem} error=${status.error} />
    <${Problem} error=${report.error} />
    <${Problem} error=${csv.error} />
    ${rows
      ? html`<${Table}
          caption="Batch report"
          rows=${rows}
          rowKey=${(r) => String(r.item_index)}
          columns=${[
            { title: 'Item', render: (r) => r.item_index },
            { title: 'Status', render: (r) => r.status },
            { title: 'Payout', render: (r) => (r.payout_id ? html`<code>${r.payout_id}</code>` : '—') },
            { title: 'Amount', render: (r) => (r.payout_amount ? formatMoney(r.payout_amount, r.currency) : '—') },
            { title: 'Failure', render: (r) => (r.failure_code ? `${r.failure_code}: ${r.failure_detail ?? ''}` : '—') },
            { title: 'External reference', render: (r) => r.external_reference ?? '—' },
          ]}
        />`
      : null}
  </section>`;
}

/** File choice, preview, send, then the batch. */
export function BulkPayout({ api }) {
  const send = useRequest();
  const [preview, setPreview] = useState(null);
  const [batch, setBatch] = useState(null);

  async function choose(event) {
    const file = event.currentTarget.files?.[0];
    setBatch(null);
    send.setError(null);
    if (!file) return setPreview(null);
    const text = await file.text();
    // The key is made with the preview: sending the same preview twice (a retry after a
    // lost answer) is answered with the same batch instead of paying twice.
    setPreview({ ...bulkPreview(text), fileName: file.name, key: crypto.randomUUID() });
  }

  async function submit(event) {
    event.preventDefault();
    const created = await send.run(() => api.post('/bulk-payouts', { items: preview.items }, { idempotencyKey: preview.key }));
    if (created) setBatch(created);
  }

  const sendable = preview && preview.fileProblems.length === 0;
  return html`<section aria-labelledby="bulk-title">
    <h2 id="bulk-title">Bulk payout from a CSV file</h2>
    <p>
      A header line naming the columns (<code>${Object.keys(ITEM_FIELDS).join(',')}</code>), then one payout a line with exactly one
      of <code>customer_id</code>, <code>walletAccountNumber</code> and <code>mobileNumber</code>; at most 1,000 lines.
    </p>
    <form onSubmit=${submit}>
      <label for="bulk-file">Payout file (CSV)</label>
      <input id="bulk-file" type="file" accept=".csv,text/csv" onChange=${choose} />
      <button type="submit" disabled=${!sendable || send.busy || batch !== null}>
        ${preview ? `Send ${preview.rows.length} payouts` : 'Send payouts'}
      </button>
    </form>
    <${Problem} error=${send.error} />
    ${preview ? html`<${Preview} preview=${preview} />` : null}
    ${batch ? html`<${Batch} api=${api} batch=${batch} onBatch=${setBatch} />` : null}
  </section>`;
}
