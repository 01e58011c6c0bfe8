/**
 * Requests page (developers): the business's API request log, newest first (core
 * `listApiRequests`, cursor pages), searched by request id or idempotency key and filtered by
 * operation and status; a request opened shows its request and response bodies
 * (`getApiRequest`), redacted by the service. Each request is a card of facts, so that a narrow
 * screen stacks them instead of scrolling a table sideways. Shown to the roles that hold
 * `keys:manage` (docs/request-log.md).
 */
import { html, useState } from '../preact-htm.js';
import { Id, Problem, RowToggle, useLoad, words } from '../ui.js';
import { ListPager, PER_PAGE, When, useFilteredList } from '../lists.js';

/** The filters the user set, as the list's query. */
function queryOf(filters) {
  const query = {};
  for (const name of ['request_id', 'idempotency_key', 'operation_id', 'status']) if (filters[name].trim()) query[name] = filters[name].trim();
  return query;
}

/** A body as the log stored it: its JSON, or what the marker says. */
function Body({ title, body }) {
  if (body === null) return html`<h3>${title}</h3><p>None.</p>`;
  if (body.omitted === 'too_large') return html`<h3>${title}</h3><p>Not stored: ${body.bytes} bytes, over the 16 KiB the log keeps.</p>`;
  if (body.omitted === 'not_json') return html`<h3>${title}</h3><p>Not stored: not JSON.</p>`;
  return html`<h3>${title}</h3><pre tabindex="0" aria-label=${title}>${JSON.stringify(body, null, 2)}</pre>`;
}

/** The opened request's bodies (`getApiRequest`). */
function Bodies({ api, requestId }) {
  const detail = useLoad(() => api.get(`/api-requests/${encodeURIComponent(requestId)}`), [requestId]);
  return html`<div role="region" aria-label=${`Bodies of request ${requestId}`}>
    <${Problem} error=${detail.error} onRetry=${detail.reload} />
    ${detail.data ? html`<${Body} title="Request body" body=${detail.data.request_body} /><${Body} title="Response body" body=${detail.data.response_body} />` : null}
    ${detail.loading ? html`<p role="status">Loading…</p>` : null}
  </div>`;
}

/** One request as a card: what was called, its result, when, by whom, and its ids. */
function RequestCard({ api, r, open, setOpen }) {
  return html`<li class="card">
    <h2 class="request-title"><code>${r.method} ${r.path}</code></h2>
    <dl class="facts">
      <dt>Result</dt><dd>${r.status}${r.problem_code ? ` ${words(r.problem_code)}` : ''}</dd>
      <dt>Operation</dt><dd><code>${r.operation_id}</code></dd>
      <dt>When</dt><dd><${When} at=${r.created_at} />, ${r.duration_ms} ms</dd>
      <dt>Who</dt><dd>${r.actor.type === 'user' ? 'User' : 'API key'} <${Id} value=${r.actor.id} label=${r.actor.type === 'user' ? 'user id' : 'client id'} /></dd>
      <dt>Request id</dt><dd><${Id} value=${r.request_id} label="request id" /></dd>
      <dt>Idempotency key</dt><dd><${Id} value=${r.idempotency_key} label="idempotency key" /></dd>
    </dl>
    <${RowToggle} id=${r.id} open=${open} setOpen=${setOpen} label=${`Bodies of request ${r.request_id}`} text="Bodies" />
    ${open === r.id ? html`<${Bodies} api=${api} requestId=${r.request_id} />` : null}
  </li>`;
}

function RequestsPage({ api }) {
  const list = useFilteredList(
    (filters, cursor) => api.get('/api-requests', { query: { ...queryOf(filters), limit: filters.limit, cursor } }),
    { request_id: '', idempotency_key: '', operation_id: '', status: '', limit: '20' },
  );
  const [open, setOpen] = useState(null);
  const { page, form, field } = list;
  return html`<div>
    <p>The API requests made for the business in the last days, with their bodies; card data, secrets and codes are redacted.</p>
    <form class="filters" onSubmit=${list.apply} aria-labelledby="requests-filters-title">
      <h2 id="requests-filters-title">Search</h2>
      <label for="requests-id">Request id</label>
      <input id="requests-id" value=${form.request_id} onInput=${field('request_id')} />
      <label for="requests-key">Idempotency key</label>
      <input id="requests-key" value=${form.idempotency_key} onInput=${field('idempotency_key')} />
      <label for="requests-operation">Operation</label>
      <input id="requests-operation" value=${form.operation_id} onInput=${field('operation_id')} placeholder="createTransfer" />
      <label for="requests-status">Status</label>
      <input id="requests-status" inputmode="numeric" value=${form.status} onInput=${field('status')} placeholder="422" />
      <label for="requests-limit">Per page</label>
      <select id="requests-limit" value=${form.limit} onChange=${field('limit')}>
        ${PER_PAGE.map((n) => html`<option value=${n}>${n}</option>`)}
      </select>
      <button type="submit" disabled=${list.busy}>Search</button>
    </form>
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${page
      ? html`${page.data.length
          ? html`<ol class="requests" aria-label="API requests, newest first">${page.data.map((r) => html`<${RequestCard} key=${r.id} api=${api} r=${r} open=${open} setOpen=${setOpen} />`)}</ol>`
          : html`<p class="empty">No requests match the search.</p>`}
        <${ListPager} list=${list} label="API requests" />`
      : null}
  </div>`;
}

/** The Requests page of the portal: for the roles that may read the request log. */
export const page = { id: 'requests', title: 'Requests', sandboxOnly: false, permission: 'keys:manage', component: RequestsPage };
