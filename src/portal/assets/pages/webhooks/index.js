/**
 * Webhooks: the business's endpoints with their health over the last 24 hours, as the
 * service computes it (`listWebhookEndpointHealth`, ./health.js: success rate, last success,
 * failing since and why, a red badge for a failing or disabled endpoint), registering one
 * (`createWebhookEndpoint`, with a signing secret drawn in the browser and shown once),
 * and the selected endpoint's management and delivery log (./endpoint.js).
 */
import { html, useRef, useState } from '../../preact-htm.js';
import { Field, Problem, Table, formatTime, useLoad, useSubmit } from '../../ui.js';
import { EndpointDetail, EventChoices, OneTimeSecret } from './endpoint.js';
import { HealthBadge, allEndpointHealth, failureText, rateText } from './health.js';

const ENDPOINTS = '/cl/v1/webhooks/endpoints';

/** A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. */
function newSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** The registration form; `onCreated({ url, secret })` after a 200. */
function RegisterEndpoint({ api, onCreated }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState([]);
  const { onSubmit, busy, error } = useSubmit(async () => {
    const secret = newSecret();
    await api.post(ENDPOINTS, { url: url.trim(), secret, events, ...(description.trim() ? { description: description.trim() } : {}) });
    setUrl('');
    setDescription('');
    setEvents([]);
    onCreated({ url: url.trim(), secret });
  });
  return html`<form class="card" onSubmit=${onSubmit} aria-labelledby="register-heading">
    <h2 id="register-heading">Register an endpoint</h2>
    <${Field} id="endpoint-url" label="URL" value=${url} onInput=${setUrl} required
      hint="https to a public host; the sandbox also accepts http to a loopback address." />
    <${Field} id="endpoint-description" label="Description (optional)" value=${description} onInput=${setDescription} />
    <${EventChoices} idPrefix="new" legend="Events" value=${events} onChange=${setEvents} />
    <p class="muted">The portal draws the endpoint's signing secret in this browser and shows it once, after registration.</p>
    <${Problem} error=${error} />
    <button type="submit" disabled=${busy}>Register endpoint</button>
  </form>`;
}

function Webhooks({ api }) {
  // The endpoints and their health in one list: one request per 100 endpoints.
  const health = useLoad(() => allEndpointHealth(api), [api]);
  const endpoints = { ...health, data: health.data?.map((h) => h.endpoint) };
  const healthOf = (e) => health.data?.find((h) => h.endpoint.id === e.id);
  const [selectedId, setSelectedId] = useState(null);
  const [created, setCreated] = useState(null);
  const detailHeading = useRef(null);
  const select = (id) => {
    setSelectedId(id);
    setCreated(null);
    // The detail renders below the list: move the focus there.
    setTimeout(() => detailHeading.current?.focus(), 0);
  };
  const selected = endpoints.data?.find((e) => e.id === selectedId) ?? null;
  return html`
    <p>Events are sent to the endpoints registered here, signed per Standard Webhooks and retried for about three days.</p>
    <section aria-labelledby="endpoints-heading">
      <h2 id="endpoints-heading">Endpoints</h2>
      <${Problem} error=${health.error} onRetry=${health.reload} />
      ${endpoints.loading && !endpoints.data ? html`<p role="status">Loading endpoints…</p>` : null}
      ${endpoints.data
        ? html`<${Table} caption="Webhook endpoints" rows=${endpoints.data} empty="No endpoint is registered yet." columns=${[
            { key: 'url', title: 'URL', render: (e) => html`<code>${e.url}</code>` },
            { key: 'status', title: 'Status', render: (e) => html`<${HealthBadge} endpoint=${e} health=${healthOf(e)} />` },
            { key: 'rate', title: 'Success (24 h)', num: true, render: (e) => rateText(healthOf(e)) },
            { key: 'last', title: 'Last success', render: (e) => formatTime(healthOf(e).last_success_at) },
            { key: 'since', title: 'Failing since', render: (e) => formatTime(healthOf(e).failing_since) },
            { key: 'failure', title: 'Last failure (24 h)', render: (e) => failureText(healthOf(e)) },
            { key: 'description', title: 'Description', render: (e) => e.description ?? '—' },
            { key: 'events', title: 'Events', render: (e) => e.events.join(', ') },
            { key: 'manage', title: 'Actions', render: (e) => html`<button type="button" class="secondary" aria-label=${`Manage ${e.url}`}
                aria-pressed=${e.id === selectedId} onClick=${() => select(e.id)}>Manage</button>` },
          ]} />`
        : null}
    </section>
    ${created ? html`<${OneTimeSecret} title="Endpoint registered" secret=${created.secret}
        note=${`Configure ${created.url} to verify deliveries with this secret. It is shown only now.`} />` : null}
    ${selected
      ? html`<${EndpointDetail} key=${selected.id} api=${api} endpoint=${selected} headingRef=${detailHeading}
          health=${healthOf(selected)} onChanged=${endpoints.reload} onDeleted=${() => { setSelectedId(null); endpoints.reload(); }} />`
      : null}
    ${api.can('webhooks:manage') ? html`<${RegisterEndpoint} api=${api} onCreated=${(c) => { setCreated(c); endpoints.reload(); }} />` : null}`;
}

export const page = { id: 'webhooks', title: 'Webhooks', sandboxOnly: false, permission: 'webhooks:read', component: Webhooks };
