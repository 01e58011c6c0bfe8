/**
 * A webhook endpoint's page (`#/webhook-endpoints/<id>`, closed-loop `getWebhookEndpoint` and
 * its health from `listWebhookEndpointHealth`): its settings, health, actions and delivery
 * log (../pages/webhooks/endpoint.js EndpointDetail). `#/webhook-endpoints/<id>/<event id>`
 * (a timeline's link) shows that event's delivery first: each attempt with its request and
 * response as the service kept them (closed-loop `listWebhookDeliveryAttempts` with `event_id`).
 */
import { html } from '../preact-htm.js';
import { Problem, useLoad } from '../ui.js';
import { EndpointDetail } from '../pages/webhooks/endpoint.js';
import { AttemptDetail, attemptName, outcomeText } from '../pages/webhooks/log.js';
import { allEndpointHealth } from '../pages/webhooks/health.js';
import { ObjectFrame, ObjectHeading } from './frame.js';
import { ObjectLink } from './links.js';

/** The endpoint's delivery of event `eventId`: its attempts, newest first. */
function DeliveryOfEvent({ api, endpoint, eventId }) {
  const attempts = useLoad(() => api.get(`/cl/v1/webhooks/endpoints/${endpoint.id}/attempts`, { query: { event_id: eventId, limit: 100 } }), [api, endpoint.id, eventId]);
  const list = attempts.data?.data;
  return html`<section class="card" aria-labelledby="event-delivery-title" data-delivery=${eventId}>
    <h2 id="event-delivery-title">Delivery of event <${ObjectLink} kind="events" id=${eventId} /></h2>
    <${Problem} error=${attempts.error} onRetry=${attempts.reload} />
    ${list
      ? list.length
        ? list.map((a) => html`<div key=${a.id}>
            <h3>Attempt ${attemptName(a)}: ${outcomeText(a)}</h3>
            <${AttemptDetail} a=${a} endpoint=${endpoint} />
          </div>`)
        : html`<p class="empty">Not attempted yet.</p>`
      : html`<p role="status">Loading the attempts…</p>`}
  </section>`;
}

/** The endpoint and its health (none when the health list does not hold it yet). */
async function readEndpoint(api, id) {
  const [endpoint, health] = await Promise.all([api.get(`/cl/v1/webhooks/endpoints/${encodeURIComponent(id)}`), allEndpointHealth(api)]);
  return { endpoint, health: health.find((h) => h.endpoint.id === endpoint.id) };
}

export function WebhookEndpointPage({ api, id, more }) {
  return html`<${ObjectFrame} what="Webhook endpoint" load=${() => readEndpoint(api, id)} deps=${[api, id]}>
    ${({ endpoint, health }, reload) => html`<${ObjectHeading} title=${`Webhook endpoint ${endpoint.url}`} />
      ${more[0] ? html`<${DeliveryOfEvent} api=${api} endpoint=${endpoint} eventId=${more[0]} />` : null}
      <${EndpointDetail} api=${api} endpoint=${endpoint} health=${health} onChanged=${reload}
        onDeleted=${() => window.location.assign('#webhooks')} />`}
  </${ObjectFrame}>`;
}
