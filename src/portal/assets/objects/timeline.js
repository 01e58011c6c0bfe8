/**
 * An object's timeline on its page: the events about it (core `listEvents` with `object_id`,
 * which reads one index range whatever the business's history), oldest first, and for each
 * event its deliveries per webhook endpoint subscribed to its code (closed-loop
 * `listWebhookDeliveryAttempts` with `event_id`, one request per endpoint and event): the
 * number of attempts, the latest outcome and a link to the delivery on the endpoint's page.
 * The newest PAGE events are read first; "Earlier events" reads the page before them.
 */
import { html, useState } from '../preact-htm.js';
import { Problem, plural, useLoad, words } from '../ui.js';
import { When } from '../lists.js';
import { ObjectLink, objectHref } from './links.js';

/** Events read per page of the timeline. */
const PAGE = 100;

/** The business's endpoints (first 100: a business has a handful); none for a role that may not read them. */
function endpointsOf(api) {
  return api.get('/cl/v1/webhooks/endpoints', { query: { limit: 100 } }).then((p) => p.data);
}

/** The attempts of event `event` at `endpoint`, newest first. */
function attemptsOf(api, endpoint, event) {
  return api.get(`/cl/v1/webhooks/endpoints/${endpoint.id}/attempts`, { query: { event_id: event.id, limit: 100 } }).then((p) => p.data);
}

/** One event's delivery to one endpoint: attempts, latest outcome, link. */
function Delivery({ api, endpoint, event }) {
  const attempts = useLoad(() => attemptsOf(api, endpoint, event), [api, endpoint.id, event.id]);
  const latest = attempts.data?.[0];
  return html`<p class="delivery" data-endpoint=${endpoint.id}>
    <a href=${objectHref('webhook-endpoints', endpoint.id, event.id)}>${endpoint.url}</a>:
    ${attempts.error ? html` <${Problem} error=${attempts.error} onRetry=${attempts.reload} />` : null}
    ${attempts.data
      ? latest
        ? html` ${plural(attempts.data.length, 'attempt')}, latest <span class=${latest.outcome === 'SUCCEEDED' ? 'status-ok' : 'status-bad'}>${words(latest.outcome)}</span>${latest.response_status ? ` (HTTP ${latest.response_status})` : ''}`
        : ' not attempted yet'
      : attempts.loading
        ? ' loading…'
        : null}
  </p>`;
}

/**
 * The timeline of the object `objectId`; `label` names it ("Payout timeline"), `createdAt`
 * (when given) is its first step, "Created"; `level` is its heading's level (2 on an object
 * page, 3 inside a list's panel).
 */
export function ObjectTimeline({ api, objectId, label, createdAt, level = 2 }) {
  const [cursors, setCursors] = useState([undefined]);
  const may = api.can('webhooks:read');
  const events = useLoad(async () => {
    if (!may) return null;
    const pages = [];
    for (const cursor of cursors) pages.push(await api.get('/events', { query: { object_id: objectId, limit: PAGE, cursor } }));
    return { events: pages.flatMap((p) => p.data).reverse(), next: pages.at(-1).has_more ? pages.at(-1).next_cursor : null };
  }, [api, objectId, cursors.length]);
  const endpoints = useLoad(() => (may ? endpointsOf(api) : Promise.resolve([])), [api]);
  const title = `timeline-${objectId}`;
  return html`<section class="card" aria-labelledby=${title}>
    ${level === 2 ? html`<h2 id=${title}>Timeline</h2>` : html`<h3 id=${title}>Timeline</h3>`}
    ${may ? null : html`<p class="muted">The timeline lists the events and their webhook deliveries: your role may not read them.</p>`}
    <${Problem} error=${events.error ?? endpoints.error} onRetry=${() => (events.reload(), endpoints.reload())} />
    ${events.loading && !events.data && may ? html`<p role="status">Loading the timeline…</p>` : null}
    ${events.data?.next ? html`<p><button type="button" class="secondary" onClick=${() => setCursors([...cursors, events.data.next])}>Earlier events</button></p>` : null}
    ${events.data
      ? events.data.events.length || createdAt
        ? html`<ol class="timeline" aria-label=${label}>
            ${createdAt ? html`<li><strong>Created</strong> · <${When} at=${createdAt} /></li>` : null}
            ${events.data.events.map((e) => {
              const subscribed = (endpoints.data ?? []).filter((ep) => ep.events.includes(e.code));
              return html`<li key=${e.id} data-code=${e.code}>
                <strong><${ObjectLink} kind="events" id=${e.id}>${words(e.code)}</${ObjectLink}></strong> · <${When} at=${e.data.occurred_at ?? e.created_at} />
                ${e.data.failure_code ? html` · ${words(e.data.failure_code)}` : null}
                ${subscribed.length
                  ? html`<div class="deliveries" role="group" aria-label=${`Deliveries of ${words(e.code).toLowerCase()}`}>
                      ${subscribed.map((ep) => html`<${Delivery} key=${ep.id} api=${api} endpoint=${ep} event=${e} />`)}
                    </div>`
                  : html`<br /><small class="muted">No endpoint subscribes to ${e.code}.</small>`}
              </li>`;
            })}
          </ol>`
        : html`<p class="empty">No event recorded about it yet.</p>`
      : null}
  </section>`;
}

/** The deliveries of `event` per subscribed endpoint, on the event's own page, as the timeline lists them. */
export function EventDeliveries({ api, event }) {
  const endpoints = useLoad(() => endpointsOf(api), [api]);
  const subscribed = (endpoints.data ?? []).filter((ep) => ep.events.includes(event.code));
  return html`<section class="card" aria-labelledby="event-deliveries-title">
    <h2 id="event-deliveries-title">Deliveries</h2>
    <${Problem} error=${endpoints.error} onRetry=${endpoints.reload} />
    ${endpoints.data
      ? subscribed.length
        ? html`<div class="deliveries">${subscribed.map((ep) => html`<${Delivery} key=${ep.id} api=${api} endpoint=${ep} event=${event} />`)}</div>`
        : html`<p class="empty">No endpoint subscribes to ${event.code}.</p>`
      : html`<p role="status">Loading the endpoints…</p>`}
  </section>`;
}
