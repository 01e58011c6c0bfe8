/**
 * Events page: the events recorded for the business (core `listEvents`, newest first, cursor
 * pages) with the operation's documented filters (`code`, `created_from`, `created_to`,
 * `limit`), and each event's `data` as its webhook deliveries carry it.
 */
import { html, useState, useEffect } from '../preact-htm.js';
import { Problem, Table } from '../ui.js';
import { Pager, When, useRequest } from './wallets-view.js';

/** The codes of shared.yaml WebhookEventCode (the filter's schema). */
const CODES = ['onboarding.complete', 'topup.complete', 'payout.pending', 'payout.processing', 'payout.failed', 'payout.completed'];

/** A `datetime-local` value (the user's local time) as the documents' Timestamp, or undefined when empty. */
function instant(local) {
  if (!local) return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

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
  const list = useRequest();
  const [form, setForm] = useState({ code: '', from: '', to: '', limit: '20' });
  const [applied, setApplied] = useState(form);
  const [page, setPage] = useState(null);
  const [open, setOpen] = useState(null);

  const load = (filters, cursor) =>
    list.run(async () => {
      setPage(await api.get('/events', { query: queryOf(filters, cursor) }));
    });
  useEffect(() => {
    load(applied);
  }, []);

  const field = (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value });
  function apply(event) {
    event.preventDefault();
    setApplied(form);
    setOpen(null);
    load(form);
  }

  return html`<div>
    <form onSubmit=${apply} aria-labelledby="event-filters-title">
      <h2 id="event-filters-title">Filters</h2>
      <label for="event-code">Code</label>
      <select id="event-code" value=${form.code} onChange=${field('code')}>
        <option value="">Any code</option>
        ${CODES.map((c) => html`<option value=${c}>${c}</option>`)}
      </select>
      <label for="event-from">Created from</label>
      <input id="event-from" type="datetime-local" step="1" value=${form.from} onInput=${field('from')} />
      <label for="event-to">Created before</label>
      <input id="event-to" type="datetime-local" step="1" value=${form.to} onInput=${field('to')} />
      <label for="event-limit">Per page</label>
      <input id="event-limit" type="number" min="1" max="100" value=${form.limit} onInput=${field('limit')} />
      <button type="submit" disabled=${list.busy}>Show events</button>
    </form>
    <${Problem} error=${list.error} />
    ${page
      ? html`<${Table}
          caption="Events, newest first"
          rows=${page.data}
          rowKey=${(e) => e.id}
          empty="No events match the filters."
          columns=${[
            { title: 'Code', render: (e) => e.code },
            { title: 'Created', render: (e) => html`<${When} at=${e.created_at} />` },
            { title: 'Event id', render: (e) => html`<code>${e.id}</code>` },
            {
              title: 'Data',
              render: (e) =>
                html`<button type="button" aria-expanded=${open?.id === e.id} onClick=${() => setOpen(open?.id === e.id ? null : e)}
                  aria-label=${`Show data of event ${e.id}`}>Show data</button>`,
            },
          ]}
        />
        <${Pager} page=${page} label="Events" busy=${list.busy} onFirst=${() => load(applied)} onNext=${(c) => load(applied, c)} />`
      : null}
    ${open
      ? html`<section aria-labelledby="event-data-title">
          <h2 id="event-data-title">${open.code} <code>${open.id}</code></h2>
          <pre tabindex="0" aria-label="Event data">${JSON.stringify(open.data, null, 2)}</pre>
        </section>`
      : null}
  </div>`;
}

/** The Events page of the portal. */
export const page = { id: 'events', title: 'Events', sandboxOnly: false, component: EventsPage };
