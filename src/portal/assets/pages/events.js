/**
 * Events page: the events recorded for the business (core `listEvents`, newest first, cursor
 * pages) with the operation's documented filters (`code`, `created_from`, `created_to`,
 * `limit`; saved as CSV by `exportEventsCsv`), and each event's `data` as its webhook deliveries carry it.
 */
import { html, useState } from '../preact-htm.js';
import { Id, Problem, Table, instant, words } from '../ui.js';
import { ListPager, PER_PAGE, When, useFilteredList } from '../lists.js';
import { ExportCsv } from '../exports.js';

/** The codes of shared.yaml WebhookEventCode (the filter's schema). */
const CODES = ['onboarding.complete', 'topup.complete', 'payout.pending', 'payout.processing', 'payout.failed', 'payout.completed'];

/** The listEvents query of the filter form: only the filters the user set. */
function queryOf(filters, cursor) {
  const query = {};
  if (filters.code) query.code = filters.code;
  const from = instant(filters.from);
  const to = instant(filters.to);
  if (from) query.created_from = from;
  if (to) query.created_to = to;
  if (filters.limit) query.limit = filters.limit;
  if (cursor) query.cursor = cursor;
  return query;
}

function EventsPage({ api }) {
  const list = useFilteredList((filters, cursor) => api.get('/events', { query: queryOf(filters, cursor) }), { code: '', from: '', to: '', limit: '20' });
  const [open, setOpen] = useState(null);
  const { page, form, field } = list;
  const apply = (event) => {
    setOpen(null);
    list.apply(event);
  };

  return html`<div>
    <form onSubmit=${apply} aria-labelledby="event-filters-title">
      <h2 id="event-filters-title">Filters</h2>
      <label for="event-code">Code</label>
      <select id="event-code" value=${form.code} onChange=${field('code')}>
        <option value="">Any code</option>
        ${CODES.map((c) => html`<option value=${c}>${words(c)}</option>`)}
      </select>
      <label for="event-from">Created from</label>
      <input id="event-from" type="datetime-local" step="1" value=${form.from} onInput=${field('from')} />
      <label for="event-to">Created before</label>
      <input id="event-to" type="datetime-local" step="1" value=${form.to} onInput=${field('to')} />
      <label for="event-limit">Per page</label>
      <select id="event-limit" value=${form.limit} onChange=${field('limit')}>
        ${PER_PAGE.map((n) => html`<option value=${n}>${n}</option>`)}
      </select>
      <button type="submit" disabled=${list.busy}>Show events</button>
      <${ExportCsv} api=${api} path="/events.csv" query=${queryOf(list.applied)} filename="events.csv" />
    </form>
    <${Problem} error=${list.error} onRetry=${list.retry} />
    ${page
      ? html`<${Table}
          caption="Events, newest first"
          rows=${page.data}
          rowKey=${(e) => e.id}
          detail=${(e) => (open?.id === e.id ? html`<pre tabindex="0" aria-label=${`Data of event ${e.id}`}>${JSON.stringify(e.data, null, 2)}</pre>` : null)}
          empty="No events match the filters."
          columns=${[
            { title: 'Code', render: (e) => words(e.code) },
            { title: 'Created', render: (e) => html`<${When} at=${e.created_at} />` },
            { title: 'Event id', render: (e) => html`<${Id} value=${e.id} label="event id" />` },
            {
              title: 'Data',
              render: (e) =>
                html`<button type="button" aria-expanded=${open?.id === e.id} onClick=${() => setOpen(open?.id === e.id ? null : e)}
                  aria-label=${`Show data of event ${e.id}`}>Show data</button>`,
            },
          ]}
        />
        <${ListPager} list=${list} label="Events" />`
      : null}
  </div>`;
}

/** The Events page of the portal. */
export const page = { id: 'events', title: 'Events', sandboxOnly: false, permission: 'webhooks:read', component: EventsPage };
