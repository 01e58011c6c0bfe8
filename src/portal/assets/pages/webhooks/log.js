/**
 * A webhook endpoint's delivery log on the Webhooks page (closed-loop
 * `listWebhookDeliveryAttempts`, newest first; saved as CSV by `exportWebhookDeliveryAttemptsCsv`): the attempts in a fixed-width table whose
 * long cells wrap, the same attempts grouped by event with each event's request body and
 * each attempt's response body, sending one event again (`redeliverEvent`) and recovering
 * the failures since a time (`recoverWebhookDeliveries`).
 *
 * The request body of a delivery is the event as signing.ts serialises it (`id`, `code`,
 * `created_at`, `webhook_id`, `data`): the portal rebuilds it from the event as core
 * `listEvents` answers it (the attempts carry the event's id and code, not its data). A
 * `webhook.test` event is not among the listed events; its data is `{}`.
 */
import { html, useState } from '../../preact-htm.js';
import { formatTime, Id, plural, Problem, RowToggle, Table, useLoad, words } from '../../ui.js';
import { ExportCsv } from '../../exports.js';

/** A `datetime-local` value for `date` in the browser's time zone. */
function localInputValue(date) {
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}


/** The delivery log, newest first, with resend per event and recovery since a time; `onRefresh` runs with "Refresh log" (the endpoint's health). */
export function DeliveryLog({ api, endpoint, path, onRefresh }) {
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
      <button type="button" class="secondary" onClick=${() => { log.reload(); onRefresh?.(); }}>Refresh log</button>
      <${ExportCsv} api=${api} path=${`${path}/attempts.csv`} query=${{ outcome }} filename=${`attempts-${endpoint.id}.csv`} />
    </div>
    <form class="actions" onSubmit=${recover}>
      <label for="recover-since">Failures since</label>
      <input id="recover-since" type="datetime-local" value=${since} onInput=${(e) => setSince(e.currentTarget.value)} required />
      <button type="submit" class="secondary">Recover failures</button>
    </form>
    <${Problem} error=${error} />
    <${Problem} error=${log.error} onRetry=${log.reload} />
    ${result ? html`<p role="status">${result}</p>` : null}
    ${log.data
      ? html`<${Table} caption="Delivery attempts, newest first" className="log" rows=${log.data.attempts} empty="No attempt yet." columns=${[
          { key: 'started_at', title: 'Sent', render: (a) => formatTime(a.started_at) },
          { key: 'event_code', title: 'Event', render: (a) => html`${a.event_code}<br /><code class="muted">${a.event_id}</code>` },
          { key: 'attempt', title: 'Attempt' },
          { key: 'outcome', title: 'Outcome', render: (a) => html`<span class=${a.outcome === 'SUCCEEDED' ? 'status-ok' : 'status-bad'}>${words(a.outcome)}</span>` },
          { key: 'response_status', title: 'Status', num: true, render: (a) => a.response_status ?? '—' },
          { key: 'duration_ms', title: 'Duration', num: true, render: (a) => `${a.duration_ms} ms` },
          { key: 'response_body', title: 'Response', render: (a) => (a.response_body ? html`<code class="excerpt">${a.response_body}</code>` : '—') },
          { key: 'error', title: 'Error', render: (a) => a.error ?? '—' },
          { key: 'next_attempt_at', title: 'Next retry', render: (a) => formatTime(a.next_attempt_at) },
          { key: 'resend', title: 'Actions', render: (a) => (a.event_code === 'webhook.test' ? '—'
            : html`<button type="button" class="secondary" aria-label=${`Resend ${a.event_code} ${a.event_id}`} onClick=${() => resend(a)}>Resend</button>`) },
        ]} />
        ${log.data.more ? html`<button type="button" class="secondary" onClick=${() => setPages(pages + 1)}>Older attempts</button>` : null}
        <${EventGroups} api=${api} endpoint=${endpoint} attempts=${log.data.attempts} />`
      : html`<p role="status">Loading the log…</p>`}
  </section>`;
}


/** The attempts of `attempts` by event, in the order of their newest attempt. */
function groupByEvent(attempts) {
  const groups = new Map();
  for (const a of attempts) {
    if (!groups.has(a.event_id)) groups.set(a.event_id, { event_id: a.event_id, event_code: a.event_code, attempts: [] });
    groups.get(a.event_id).attempts.push(a);
  }
  return [...groups.values()];
}

/**
 * The request body the endpoint received for event `group.event_id`: the event found by
 * listEvents (its code, created no later than its first attempt), in signing.ts's shape.
 */
async function requestBody(api, endpoint, group) {
  const first = group.attempts.at(-1);
  if (group.event_code === 'webhook.test') return { id: group.event_id, code: group.event_code, webhook_id: endpoint.id, data: {} };
  const createdTo = new Date(new Date(first.started_at).getTime() + 1000).toISOString();
  const page = await api.get('/events', { query: { code: group.event_code, created_to: createdTo, limit: 100 } });
  const event = page.data.find((e) => e.id === group.event_id);
  if (!event) return null;
  return { id: event.id, code: event.code, created_at: event.created_at, webhook_id: endpoint.id, data: event.data };
}

/** One event's delivery to `endpoint` (`group`: `{ event_id, event_code, attempts }`, attempts newest first): its request body, then each attempt with its response body. */
export function EventDelivery({ api, endpoint, group }) {
  const body = useLoad(() => requestBody(api, endpoint, group), [api, group.event_id]);
  return html`<div class="event-delivery">
    <h4>Request body</h4>
    <${Problem} error=${body.error} onRetry=${body.reload} />
    ${body.data === null ? html`<p class="muted">The event is older than the events the portal reads.</p>` : null}
    ${body.data ? html`<pre tabindex="0" aria-label=${`Request body of event ${group.event_id}`}>${JSON.stringify(body.data, null, 2)}</pre>` : null}
    ${group.attempts.map((a) => html`<div key=${a.id}>
      <h4>Attempt ${a.attempt}: ${words(a.outcome)}${a.response_status ? `, HTTP ${a.response_status}` : ''} · ${formatTime(a.started_at)}</h4>
      ${a.error ? html`<p class="status-bad">${a.error}</p>` : null}
      <pre tabindex="0" aria-label=${`Response body of attempt ${a.attempt} of event ${group.event_id}`}>${a.response_body ?? '(no body)'}</pre>
    </div>`)}
  </div>`;
}

/** The attempts shown, grouped by event; an event opened shows the bodies below its row. */
function EventGroups({ api, endpoint, attempts }) {
  const [open, setOpen] = useState(null);
  const groups = groupByEvent(attempts);
  return html`<${Table}
    caption="Attempts by event"
    rows=${groups}
    rowKey=${(g) => g.event_id}
    empty="No event delivered yet."
    detail=${(g) => (open === g.event_id ? html`<${EventDelivery} api=${api} endpoint=${endpoint} group=${g} />` : null)}
    columns=${[
      { title: 'Event', render: (g) => html`<code>${g.event_code}</code><br /><${Id} value=${g.event_id} label="event id" />` },
      { title: 'Attempts', num: true, render: (g) => plural(g.attempts.length, 'attempt') },
      { title: 'Latest', render: (g) => html`<span class=${g.attempts[0].outcome === 'SUCCEEDED' ? 'status-ok' : 'status-bad'}>${words(g.attempts[0].outcome)}</span>` },
      { title: 'Last sent', render: (g) => formatTime(g.attempts[0].started_at) },
      {
        title: 'Bodies',
        render: (g) => html`<${RowToggle} id=${g.event_id} open=${open} setOpen=${setOpen} label=${`Show bodies of event ${g.event_id}`} text="Show bodies" />`,
      },
    ]}
  />`;
}
