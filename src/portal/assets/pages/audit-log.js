/**
 * Audit log page: every change and every refusal the business's keys and people caused, newest
 * first (core `listAuditEvents`, cursor pages), filtered by who (an API key's client id or a
 * user's id), the operation, a target id and the time; the same filtered rows saved as CSV
 * (`exportAuditEventsCsv`). Who a user id is, the Team page says.
 */
import { html } from '../preact-htm.js';
import { Id, Problem, Table, instant, words } from '../ui.js';
import { ListPager, PER_PAGE, When, useFilteredList, useRequest } from '../lists.js';
import { downloadText } from '../download.js';

/** The filters the user set, as the operations' query (`cursor` and `limit` for the list only). */
function queryOf(filters) {
  const query = {};
  for (const name of ['actor_id', 'operation_id', 'target_id']) if (filters[name].trim()) query[name] = filters[name].trim();
  const from = instant(filters.from);
  const to = instant(filters.to);
  if (from) query.created_from = from;
  if (to) query.created_to = to;
  return query;
}

function AuditLogPage({ api }) {
  const list = useFilteredList(
    (filters, cursor) => api.get('/audit-events', { query: { ...queryOf(filters), limit: filters.limit, cursor } }),
    { actor_id: '', operation_id: '', target_id: '', from: '', to: '', limit: '20' },
  );
  const exporting = useRequest();
  const { page, form, field } = list;
  const exportCsv = () =>
    exporting.run(async () => downloadText('audit-events.csv', await api.text('/audit-events.csv', { query: queryOf(form), accept: 'text/csv' })));
  return html`<div>
    <form onSubmit=${list.apply} aria-labelledby="audit-filters-title">
      <h2 id="audit-filters-title">Filters</h2>
      <label for="audit-actor">Who (client id or user id)</label>
      <input id="audit-actor" value=${form.actor_id} onInput=${field('actor_id')} />
      <label for="audit-operation">Operation</label>
      <input id="audit-operation" value=${form.operation_id} onInput=${field('operation_id')} placeholder="createTransfer" />
      <label for="audit-target">Target id</label>
      <input id="audit-target" value=${form.target_id} onInput=${field('target_id')} />
      <label for="audit-from">From</label>
      <input id="audit-from" type="datetime-local" step="1" value=${form.from} onInput=${field('from')} />
      <label for="audit-to">Before</label>
      <input id="audit-to" type="datetime-local" step="1" value=${form.to} onInput=${field('to')} />
      <label for="audit-limit">Per page</label>
      <select id="audit-limit" value=${form.limit} onChange=${field('limit')}>
        ${PER_PAGE.map((n) => html`<option value=${n}>${n}</option>`)}
      </select>
      <button type="submit" disabled=${list.busy}>Show entries</button>
      <button type="button" class="secondary" disabled=${exporting.busy} onClick=${exportCsv}>Save as CSV</button>
    </form>
    <${Problem} error=${exporting.error} />
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${page
      ? html`<${Table}
          caption="Audit log, newest first"
          rows=${page.data}
          empty="No entries match the filters."
          columns=${[
            { title: 'When', render: (e) => html`<${When} at=${e.created_at} />` },
            { title: 'Who', render: (e) => html`${e.actor.type === 'user' ? 'User' : 'API key'} <${Id} value=${e.actor.id} label=${e.actor.type === 'user' ? 'user id' : 'client id'} />` },
            { title: 'Operation', render: (e) => html`<code>${e.operation_id}</code>${e.replayed ? ' (replayed)' : ''}` },
            { title: 'Targets', render: (e) => (e.target_ids.length ? e.target_ids.map((t) => html`<${Id} value=${t} label="target id" />`) : '—') },
            { title: 'Result', render: (e) => `${e.status}${e.problem_code ? ` ${words(e.problem_code)}` : ''}` },
            { title: 'From', render: (e) => e.ip_address ?? '—' },
            { title: 'Request id', render: (e) => html`<${Id} value=${e.request_id} label="request id" />` },
          ]}
        />
        <${ListPager} list=${list} label="Audit log" />`
      : null}
  </div>`;
}

/** The Audit log page of the portal. */
export const page = { id: 'audit-log', title: 'Audit log', sandboxOnly: false, permission: 'business:read', component: AuditLogPage };
