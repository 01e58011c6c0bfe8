/**
 * One webhook endpoint on the Webhooks page: editing it (`updateWebhookEndpoint`: url,
 * events, description, ENABLED/DISABLED), deleting it (`deleteWebhookEndpoint`), a test
 * event (`sendWebhookTestEvent`), rotating its secret (`rotateWebhookEndpointSecret`, the
 * new secret shown once), its health (./health.js) and its delivery log
 * (./log.js), and who created it (../../creator.js). Not a page of the registry: ./index.js uses it.
 */
import { html, useState } from '../../preact-htm.js';
import { CopyButton, Field, Id, Problem, formatTime, useSubmit } from '../../ui.js';
import { DeliveryLog } from './log.js';
import { AttemptsChart, HealthBadge, failureText, rateText } from './health.js';
import { CreatedBy } from '../../creator.js';

/** The codes an endpoint may subscribe to (the document's WebhookEventCode). */
export const EVENT_CODES = ['onboarding.complete', 'topup.complete', 'payout.pending', 'payout.processing', 'payout.failed', 'payout.completed'];

/** Checkboxes of the event codes; `value` the chosen codes, `onChange(codes)`. */
export function EventChoices({ idPrefix, legend, value, onChange }) {
  const toggle = (code, on) => onChange(on ? [...value, code] : value.filter((c) => c !== code));
  return html`<fieldset class="checks">
    <legend>${legend}</legend>
    ${EVENT_CODES.map((code) => html`<label for=${`${idPrefix}-event-${code}`}>
      <input type="checkbox" id=${`${idPrefix}-event-${code}`} value=${code} checked=${value.includes(code)}
        onChange=${(e) => toggle(code, e.currentTarget.checked)} />${code}</label>`)}
  </fieldset>`;
}

/** A secret shown this once. */
export function OneTimeSecret({ title, secret, note }) {
  return html`<div class="secret" role="status">
    <strong>${title}</strong>
    <p>Signing secret (shown once): <code data-secret>${secret}</code> <${CopyButton} text=${secret} label="Copy the signing secret" /></p>
    ${note ? html`<p>${note}</p>` : null}
  </div>`;
}

/** The edit form: url, description, events. */
function EditEndpoint({ api, endpoint, path, onSaved }) {
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const [events, setEvents] = useState(endpoint.events);
  const [saved, setSaved] = useState(false);
  const { onSubmit, error } = useSubmit(async () => {
    setSaved(false);
    await api.patch(path, { url: url.trim(), events, description: description.trim() || null });
    setSaved(true);
    onSaved();
  });
  return html`<form onSubmit=${onSubmit} aria-labelledby="edit-heading">
    <h3 id="edit-heading">Settings</h3>
    <${Field} id="edit-url" label="URL" value=${url} onInput=${setUrl} required />
    <${Field} id="edit-description" label="Description" value=${description} onInput=${setDescription} />
    <${EventChoices} idPrefix="edit" legend="Events" value=${events} onChange=${setEvents} />
    <${Problem} error=${error} />
    ${saved ? html`<p role="status">Saved.</p>` : null}
    <button type="submit">Save changes</button>
  </form>`;
}

/** The selected endpoint: settings, actions, delivery log. `onChanged` reloads the list; `onDeleted` after a delete. */
export function EndpointDetail({ api, endpoint, health, headingRef, onChanged, onDeleted }) {
  const path = `/cl/v1/webhooks/endpoints/${endpoint.id}`;
  const [error, setError] = useState(null);
  const [message, setMessage] = useState(null);
  const [rotated, setRotated] = useState(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const run = async (call) => {
    setError(null);
    setMessage(null);
    setRotated(null);
    try {
      await call();
    } catch (err) {
      setError(err);
    }
  };
  const enabled = endpoint.status === 'ENABLED';
  const toggle = () => run(async () => {
    await api.patch(path, { status: enabled ? 'DISABLED' : 'ENABLED' });
    setMessage(enabled ? 'The endpoint is disabled.' : 'The endpoint is enabled.');
    onChanged();
  });
  const test = () => run(async () => {
    const d = await api.post(`${path}/test-events`, {});
    setMessage(`A webhook.test event (${d.event_id}) is on its way; see its attempts in the log.`);
  });
  const rotate = () => run(async () => {
    setRotated(await api.post(`${path}/secret-rotations`, {}));
    onChanged();
  });
  const remove = () => run(async () => {
    await api.del(path);
    onDeleted();
  });
  return html`<section class="card" aria-labelledby="endpoint-heading">
    <h2 id="endpoint-heading" tabindex="-1" ref=${headingRef}>Endpoint <code>${endpoint.url}</code></h2>
    <dl class="facts">
      <dt>ID</dt><dd><${Id} value=${endpoint.id} label="endpoint id" /></dd>
      <dt>Status</dt><dd><${HealthBadge} endpoint=${endpoint} health=${health} />${endpoint.disabled_at ? ` since ${formatTime(endpoint.disabled_at)}` : ''}</dd>
      <dt>Success (24 h)</dt><dd>${rateText(health)}</dd>
      <dt>Last success</dt><dd>${formatTime(health?.last_success_at)}</dd>
      <dt>Failing since</dt><dd>${formatTime(health?.failing_since)}</dd>
      <dt>Last failure (24 h)</dt><dd>${failureText(health)}</dd>
      <dt>API version</dt><dd>${endpoint.api_version} <span class="muted">(its events are rendered at it)</span></dd>
      <dt>Previous secret signs until</dt><dd>${formatTime(endpoint.previous_secret_expires_at)}</dd>
    </dl>
    ${health ? html`<${AttemptsChart} health=${health} />` : null}
    <${CreatedBy} api=${api} id=${endpoint.id} operation="createWebhookEndpoint" />
    <div class="actions">
      <button type="button" onClick=${test} disabled=${!enabled}>Send test event</button>
      <button type="button" class="secondary" onClick=${toggle}>${enabled ? 'Disable' : 'Enable'}</button>
      <button type="button" class="secondary" onClick=${rotate}>Rotate secret</button>
      ${confirmDelete
        ? html`<button type="button" class="danger" onClick=${remove}>Confirm delete</button>
            <button type="button" class="secondary" onClick=${() => setConfirmDelete(false)}>Keep it</button>`
        : html`<button type="button" class="danger" onClick=${() => setConfirmDelete(true)}>Delete</button>`}
    </div>
    <${Problem} error=${error} />
    ${message ? html`<p role="status">${message}</p>` : null}
    ${rotated ? html`<${OneTimeSecret} title="Secret rotated" secret=${rotated.secret}
        note=${rotated.previous_secret_expires_at ? `The previous secret signs beside it until ${formatTime(rotated.previous_secret_expires_at)}.` : 'The previous secret no longer signs.'} />` : null}
    <${EditEndpoint} api=${api} endpoint=${endpoint} path=${path} onSaved=${onChanged} />
    <${DeliveryLog} api=${api} endpoint=${endpoint} path=${path} onRefresh=${onChanged} />
  </section>`;
}
