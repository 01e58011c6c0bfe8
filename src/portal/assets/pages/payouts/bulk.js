/**
 * The bulk payout part of the Payouts page: a CSV file read in the browser, its preview
 * (./csv.js: the rows the service will reject for their values, and what makes the
 * whole file unsendable), then core `createBulkPayout` under an idempotency key made with the
 * preview (sending the same file again is answered with the same batch), the batch's counts
 * (`getBulkPayoutStatus`), its report (`getBatchReport`) and the report as a CSV file
 * (`getBatchReportCsv`). A file the business's rules send for approval goes to
 * `createPayoutApproval` instead (./approvals.js).
 *
 * Before sending, the file's count and total (the rows not rejected for their values, whose
 * amounts the payout account pays) and the payout account's balance after
 * (`getBusinessAccountBalance`), with a warning, not a block, when it would go below zero.
 *
 * Every data row is sent, rejected ones included, as the service takes them: each is
 * rejected alone and recorded in the report under its row's `item_index`, so the report
 * lines up with the file.
 */
import { html, useEffect, useState } from '../../preact-htm.js';
import { bulkPreview, ITEM_FIELDS } from './csv.js';
import { downloadText } from '../../download.js';
import { Id, Money, Problem, Table, plural, useLoad, words } from '../../ui.js';
import { When, useRequest } from '../../lists.js';
import { sumOf, typedAmount } from '../../amounts.js';
import { Facts, Warnings } from '../../corrections/review.js';
import { balanceAfter, payoutAccount } from '../../corrections/movement.js';
import { LinkedId, ObjectLink } from '../../objects/links.js';
import { SentForApproval, approvalRequired, needsApproval } from './approvals.js';

/** core.yaml BulkPayoutCounts: the states an item of a batch is counted in. */
export const STATES = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'];

/** Preview rows shown at a time: a 1,000-line file is read whole but shown a page at a time. */
const PREVIEW_PAGE = 50;

/** The receiver a row names, as the file gives it. */
const receiverOf = (item) => item.customer_id ?? item.walletAccountNumber ?? item.mobileNumber ?? '—';

/** The preview of a read file: its problems, or its rows with what the service will do, PREVIEW_PAGE at a time. */
function Preview({ preview }) {
  const [start, setStart] = useState(0);
  const rejected = preview.rows.filter((r) => r.rejection).length;
  const shown = preview.rows.slice(start, start + PREVIEW_PAGE);
  const last = Math.min(start + PREVIEW_PAGE, preview.rows.length);
  return html`<section aria-labelledby="bulk-preview-title">
    <h3 id="bulk-preview-title">Preview of ${preview.fileName}</h3>
    ${preview.fileProblems.length > 0
      ? html`<div role="alert" class="problem">
          <strong>The service would refuse this file as a whole; fix it and choose it again.</strong>
          <ul>${preview.fileProblems.slice(0, 20).map((p) => html`<li>${p}</li>`)}</ul>
          ${preview.fileProblems.length > 20 ? html`<p>And ${plural(preview.fileProblems.length - 20, 'more problem')}.</p>` : null}
        </div>`
      : html`<p role="status">
          ${plural(preview.rows.length, 'row')}: ${rejected} will be rejected for their values (marked below), the others are checked by the
          service (customer, whitelist, funds) when the file is sent.
        </p>`}
    <${Table}
      caption="Rows of the file"
      rows=${shown}
      rowKey=${(r) => String(r.index)}
      columns=${[
        { title: 'Item', num: true, render: (r) => r.index },
        { title: 'Line', num: true, render: (r) => r.line },
        { title: 'Amount', num: true, render: (r) => html`<span class="money">${r.item.payout_amount ?? '—'}</span>` },
        { title: 'Receiver', render: (r) => receiverOf(r.item) },
        { title: 'External reference', render: (r) => r.item.external_reference ?? '—' },
        {
          title: 'Preview',
          render: (r) => (r.rejection ? html`<span class="rejected">Rejected: ${r.rejection.detail}</span>` : 'To be checked by the service'),
        },
      ]}
    />
    ${preview.rows.length > PREVIEW_PAGE
      ? html`<nav class="pager" aria-label="Preview pages">
          <span role="status">Rows ${start + 1} to ${last} of ${preview.rows.length}</span>
          <button type="button" class="secondary" disabled=${start === 0} onClick=${() => setStart(Math.max(0, start - PREVIEW_PAGE))}>Previous rows</button>
          <button type="button" class="secondary" disabled=${last >= preview.rows.length} onClick=${() => setStart(start + PREVIEW_PAGE)}>Next rows</button>
        </nav>`
      : null}
  </section>`;
}

/** What sending `preview` pays: its count and total, and the payout account's balance after (`account`, as read). */
function BulkTotal({ preview, account }) {
  const paid = preview.rows.filter((r) => !r.rejection);
  const total = sumOf(paid.map((r) => typedAmount(r.item.payout_amount)));
  if (account.error) return html`<${Problem} error=${account.error} onRetry=${account.reload} />`;
  if (!account.data) return html`<p role="status">Reading the payout account…</p>`;
  const { currency } = account.data;
  const after = balanceAfter({ name: 'Payout account', balance: account.data.balance, amount: total, currency, out: true });
  return html`<div data-field="bulk-total">
    <${Facts} label="What the file pays" facts=${[
      ['Payouts', `${plural(paid.length, 'payout')}${paid.length < preview.rows.length ? ` (and ${plural(preview.rows.length - paid.length, 'rejected row')})` : ''}`],
      ['Total', html`<${Money} amount=${total} currency=${currency} />`],
      ['From', `Payout account ${account.data.account_number}`],
      after.fact,
    ]} />
    <${Warnings} warnings=${[after.warning].filter(Boolean)} />
  </div>`;
}

/**
 * A sent batch: its counts, its report (each payout and customer linking to its page) and the
 * report's download. `idPrefix` keeps its element ids unique on the page; `reportShown` reads
 * the report at once (a bulk payout's page) rather than on "Show report".
 */
export function Batch({ api, batch, onBatch, idPrefix = 'bulk', reportShown = false }) {
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
  useEffect(() => {
    if (reportShown) showReport();
  }, [reportShown, id]);
  async function download() {
    const text = await csv.run(() => api.text(`/bulk-payouts/${id}/report.csv`, { accept: 'text/csv' }));
    if (text === undefined) return;
    const name = `bulk-payout-${id}.csv`;
    downloadText(name, text);
    setSaved(name);
  }

  return html`<section aria-labelledby=${`${idPrefix}-batch-title`}>
    <h3 id=${`${idPrefix}-batch-title`}>Bulk payout <${Id} value=${id} label="bulk payout id" /></h3>
    <p>${plural(batch.item_count, 'item')}, created <${When} at=${batch.created_at} />.</p>
    <div class="table-wrap" tabindex="0" role="region" aria-label="Items per state"><table>
      <caption>Items per state</caption>
      <thead><tr>${STATES.map((s) => html`<th scope="col" class="num">${words(s)}</th>`)}</tr></thead>
      <tbody><tr>${STATES.map((s) => html`<td class="num" data-state=${s} data-label=${words(s)}>${batch.counts[s]}</td>`)}</tr></tbody>
    </table></div>
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
            { title: 'Item', num: true, render: (r) => r.item_index },
            { title: 'Status', render: (r) => words(r.status) },
            { title: 'Payout', render: (r) => html`<${LinkedId} kind="payouts" id=${r.payout_id} label="payout id" />` },
            { title: 'Customer', render: (r) => html`<${ObjectLink} kind="customers" id=${r.customer_id}>Open customer</${ObjectLink}>` },
            { title: 'Amount', num: true, render: (r) => (r.payout_amount ? html`<${Money} amount=${r.payout_amount} currency=${r.currency} />` : '—') },
            { title: 'Failure', render: (r) => (r.failure_code ? `${r.failure_code}: ${r.failure_detail ?? ''}` : '—') },
            { title: 'External reference', render: (r) => r.external_reference ?? '—' },
          ]}
        />`
      : null}
  </section>`;
}

/** File choice, preview, send, then the batch. */
export function BulkPayout({ api, business }) {
  const send = useRequest();
  const [preview, setPreview] = useState(null);
  const [batch, setBatch] = useState(null);
  const account = useLoad(() => (preview ? payoutAccount(api) : Promise.resolve(null)), [api, preview?.key]);
  const [approval, setApproval] = useState(null);

  async function choose(event) {
    const file = event.currentTarget.files?.[0];
    setBatch(null);
    setApproval(null);
    send.setError(null);
    if (!file) return setPreview(null);
    const text = await file.text();
    // The key is made with the preview: sending the same preview twice (a retry after a
    // lost answer) is answered with the same batch instead of paying twice.
    setPreview({ ...bulkPreview(text), fileName: file.name, key: crypto.randomUUID() });
  }

  async function submit(event) {
    event.preventDefault();
    // A file the business's rules send for approval goes to createPayoutApproval as it is (the
    // same key: the bulk payout's refusal comes before its key is used).
    const forApproval = () => api.post('/payout-approvals', { bulk_payout: { items: preview.items } }, { idempotencyKey: preview.key });
    const created = await send.run(async () => {
      if (needsApproval(business, preview.items.map((i) => i.payout_amount), true)) return forApproval();
      try {
        return await api.post('/bulk-payouts', { items: preview.items }, { idempotencyKey: preview.key });
      } catch (err) {
        if (approvalRequired(err)) return forApproval();
        throw err;
      }
    });
    if (created?.payout_approval_id) setApproval(created);
    else if (created) setBatch(created);
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
      <button type="submit" disabled=${!sendable || send.busy || batch !== null || approval !== null}>
        ${preview ? `Send ${plural(preview.rows.length, 'payout')}` : 'Send payouts'}
      </button>
    </form>
    ${sendable ? html`<${BulkTotal} preview=${preview} account=${account} />` : null}
    <${Problem} error=${send.error} />
    ${preview ? html`<${Preview} key=${preview.key} preview=${preview} />` : null}
    ${batch ? html`<${Batch} api=${api} batch=${batch} onBatch=${setBatch} />` : null}
    ${approval ? html`<div class="done" role="status"><${SentForApproval} approval=${approval} /></div>` : null}
  </section>`;
}
