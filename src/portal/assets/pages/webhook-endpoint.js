/**
 * One webhook endpoint on the Webhooks page: editing it (`updateWebhookEndpoint`: url,
 * events, description, ENABLED/DISABLED), deleting it (`deleteWebhookEndpoint`), a test
 * event (`sendWebhookTestEvent`), rotating its secret (`rotateWebhookEndpointSecret`, the
 * new secret shown once), its delivery log (`listWebhookDeliveryAttempts`), sending one
 * event again (`redeliverEvent`) and recovering the failures since a time
 * (`recoverWebhookDeliveries`). Not a page of the registry: ./webhooks.js uses it.
 */
import { html, useState } from '../preact-htm.js';
import { Field, Problem, Table, formatTime, useLoad, useSubmit } from '../ui.js';

/** The codes an endpoint may subscribe to (the document's WebhookEventCode). */
export const EVENT_CODES = ['onboarding.complete', 'topup.complete', 'payout.pending', 'payout.processing', 'payout.failed', 'payout.completed'];

/** The endpoint's status as text: `DISABLED (MANUAL)`. */
export function describeStatus(endpoint) {
  const text = endpoint.disabled_reason ? `${endpoint.status} (${endpoint.disabled_reason})` : endpoint.status;
  return html`<span class=${endpoint.status === 'ENABLED' ? 'status-ok' : 'status-bad'}>${text}</span>`;
}

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
    <p>Signing secret (shown once): <code data-secret>${secret}</code></p>
    ${note ? html`<p>${note}</p>` : null}
  </div>`;
}

/** A `datetime-local` value for `date` in the browser's time zone. */
function localInputValue(date) {
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
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

/** The delivery log, newest first, with resend per event and recovery since a time. */
function DeliveryLog({ api, endpoint, path }) {
  const [outcome, setOutcome] = useState('');
  const [pages, setPages] = useState(1);
  const log = useLoad(async () => {
    const attempts = [];
    let cursor;
    for (let i = 0; i < pages; i++) {
      const page = await api.get(`${path}/attempts`, { query: { limit: 25, outcome, cursor } });
      attempts.push(...page.data);
      cursor = page.next_cursor;
      if (!page.has_more) return { attempts, more: false };
    }
    return { attempts, more: true };
  }, [api, path, outcome, pages]);
  const [since, setSince] = useState(() => localInputValue(new Date(Date.now() - 3_600_000)));
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const act = async (call) => {
    setError(null);
    setResult(null);
    try {
      setResult(await call());
      log.reload();
    } catch (err) {
      setError(err);
    }
  };
  const resend = (attempt) =>
    act(async () => {
      await api.post(`/events/${attempt.event_id}/redeliveries`, { webhook_id: endpoint.id });
      return `Event ${attempt.event_id} (${attempt.event_code}) is queued again.`;
    });
  const recover = (e) => {
    e.preventDefault();
    act(async () => {
      const r = await api.post(`${path}/recoveries`, { since: new Date(since).toISOString() });
      return `${r.recovered} failed ${r.recovered === 1 ? 'delivery is' : 'deliveries are'} queued again.`;
    });
  };
  return html`<section aria-labelledby="log-heading">
    <h3 id="log-heading">Delivery log</h3>
    <div class="actions">
      <label for="log-outcome">Outcome</label>
      <select id="log-outcome" value=${outcome} onChange=${(e) => setOutcome(e.currentTarget.value)}>
        <option value="">All</option><option value="SUCCEEDED">Succeeded</option><option value="FAILED">Failed</option>
      </select>
      <button type="button" class="secondary" onClick=${log.reload}>Refresh log</button>
    </div>
    <form class="actions" onSubmit=${recover}>
      <label for="recover-since">Failures since</label>
      <input id="recover-since" type="datetime-local" value=${since} onInput=${(e) => setSince(e.currentTarget.value)} required />
      <button type="submit" class="secondary">Recover failures</button>
    </form>
    <${Problem} error=${error ?? log.error} />
    ${result ? html`<p role="status">${result}</p>` : null}
    ${log.data
      ? html`<${Table} caption="Delivery attempts, newest first" rows=${log.data.attempts} empty="No attempt yet." columns=${[
          { key: 'started_at', title: 'Sent', render: (a) => formatTime(a.started_at) },
          { key: 'event_code', title: 'Event', render: (a) => html`${a.event_code}<br /><code class="muted">${a.event_id}</code>` },
          { key: 'attempt', title: 'Attempt' },
          { key: 'outcome', title: 'Outcome', render: (a) => html`<span class=${a.outcome === 'SUCCEEDED' ? 'status-ok' : 'status-bad'}>${a.outcome}</span>` },
          { key: 'response_status', title: 'Status', render: (a) => a.response_status ?? '—' },
          { key: 'duration_ms', title: 'Duration', render: (a) => `${a.duration_ms} ms` },
          { key: 'response_body', title: 'Response', render: (a) => (a.response_body ? html`<code class="excerpt">${a.response_body}</code>` : '—') },
          { key: 'error', title: 'Error', render: (a) => a.error ?? '—' },
          { key: 'next_attempt_at', title: 'Next retry', render: (a) => formatTime(a.next_attempt_at) },
          { key: 'resend', title: 'Actions', render: (a) => (a.event_code === 'webhook.test' ? '—'
            : html`<button type="button" class="secondary" aria-label=${`Resend ${a.event_code} ${a.event_id}`} onClick=${() => resend(a)}>Resend</button>`) },
        ]} />
        ${log.data.more ? html`<button type="button" class="secondary" onClick=${() => setPages(pages + 1)}>Older attempts</button>` : null}`
      : html`<p role="status">Loading the log…</p>`}
  </section>`;
}

/** The selected endpoint: settings, actions, delivery log. `onChanged` reloads the list; `onDeleted` after a delete. */
export function EndpointDetail({ api, endpoint, headingRef, onChanged, onDeleted }) {
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
      <dt>ID</dt><dd><code>${endpoint.id}</code></dd>
      <dt>Status</dt><dd>${describeStatus(endpoint)}${endpoint.disabled_at ? ` since ${formatTime(endpoint.disabled_at)}` : ''}</dd>
      <dt>Previous secret signs until</dt><dd>${formatTime(endpoint.previous_secret_expires_at)}</dd>
    </dl>
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
    <${DeliveryLog} api=${api} endpoint=${endpoint} path=${path} />
  </section>`;
}
