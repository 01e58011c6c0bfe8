/**
 * An event's page (`#/events/<id>`): its code, time and data, a link to the object it is
 * about (its payout or customer) and to its ledger transaction, and its deliveries per
 * endpoint. The service has no read of one event: the page finds its time with the search
 * operation (an id matches whole, through the primary key) and reads it with core
 * `listEvents` over that millisecond.
 */
import { html } from '../preact-htm.js';
import { Id, words } from '../ui.js';
import { When } from '../lists.js';
import { ObjectFrame, ObjectHeading } from './frame.js';
import { LinkedId, ObjectLink } from './links.js';
import { EventDeliveries } from './timeline.js';

/** The event `id`; throws a 404-shaped problem (no Retry: it cannot help) when the business has none. */
async function readEvent(api, id) {
  const hit = (await api.get('/search', { query: { q: id } })).data.find((h) => h.type === 'EVENT' && h.id === id.toLowerCase());
  if (hit) {
    const to = new Date(new Date(hit.created_at).getTime() + 1).toISOString();
    const page = await api.get('/events', { query: { created_from: hit.created_at, created_to: to, limit: 100 } });
    const event = page.data.find((e) => e.id === hit.id);
    if (event) return event;
  }
  throw { status: 404, title: 'Event not found', detail: `This business has no event ${id}.` };
}

export function EventPage({ api, id }) {
  return html`<${ObjectFrame} what="Event" load=${() => readEvent(api, id)} deps=${[api, id]}>
    ${(event) => html`<${ObjectHeading} title=${`Event ${words(event.code)}`} />
      <section class="card" aria-label="Event facts">
        <dl class="facts">
          <dt>Event</dt><dd><${Id} value=${event.id} label="event id" /></dd>
          <dt>Code</dt><dd><code>${event.code}</code></dd>
          <dt>Created</dt><dd><${When} at=${event.created_at} /></dd>
          ${event.data.payout_id ? html`<dt>Payout</dt><dd><${LinkedId} kind="payouts" id=${event.data.payout_id} label="payout id" /></dd>` : null}
          ${event.data.customer_id ? html`<dt>Customer</dt><dd><${LinkedId} kind="customers" id=${event.data.customer_id} label="customer id" /></dd>` : null}
          ${event.data.transaction_id ? html`<dt>Ledger transaction</dt><dd><${ObjectLink} kind="transactions" id=${event.data.transaction_id} /></dd>` : null}
        </dl>
        <h2>Data</h2>
        <pre tabindex="0" aria-label=${`Data of event ${event.id}`}>${JSON.stringify(event.data, null, 2)}</pre>
      </section>
      <${EventDeliveries} api=${api} event=${event} />`}
  </${ObjectFrame}>`;
}
