/**
 * A webhook endpoint's delivery log on the Webhooks page (closed-loop
 * `listWebhookDeliveryAttempts`, newest first): filters by event type, outcome, event id and
 * payout id; one compact row per attempt (when, event, its number among the event's attempts
 * and whether someone asked for it, the outcome with its status or error in words, the
 * duration); an attempt opened below its row with everything the service kept of it (the
 * request's headers and body as sent, the response's status, headers and body, the error);
 * resending its event after a review of what will be sent (`redeliverEvent`) and recovering
 * the failures since a time (`recoverWebhookDeliveries`); the attempts the filters select saved
 * as CSV (`exportWebhookDeliveryAttemptsCsv`). An attempt's detail (AttemptDetail) is also
 * what an endpoint's page shows of one event's delivery (../../objects/webhook-endpoint.js).
 */
import { html, useState } from '../../preact-htm.js';
import { formatTime, Id, instant, Problem, RowToggle, Table, useLoad } from '../../ui.js';
import { EVENT_CODES } from './endpoint.js';
import { reasonText } from './health.js';
import { ExportCsv } from '../../exports.js';

/** A `datetime-local` value for `date` in the browser's time zone. */
function localInputValue(date) {
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_FILTER = { event_code: '', outcome: '', event_id: '', payout_id: '' };

/** The filters' problems in words, before any request; empty when they can be sent. */
function filterProblems(filters) {
  const problems = [];
  if (filters.event_id && !UUID.test(filters.event_id)) problems.push('The event id is 36 characters of digits, a to f and dashes, as the Events page shows it.');
  if (filters.payout_id && !UUID.test(filters.payout_id)) problems.push('The payout id is 36 characters of digits, a to f and dashes, as the Payouts page shows it.');
  return problems;
}

/** The outcome in words: "Succeeded · 200", "Failed · HTTP 503 Service Unavailable", "Failed · no answer within 15 s". */
export function outcomeText(a) {
  if (a.outcome === 'SUCCEEDED') return `Succeeded · ${a.response_status}`;
  return `Failed · ${reasonText(a.error, a.response_status)}`;
}

/** "Attempt 3, manual" as the log names an attempt. */
export const attemptName = (a) => `${a.number}${a.trigger === 'MANUAL' ? ', manual' : ''}`;

/** Headers as a definition list (name: value), or `none` in words. */
function HeaderList({ headers, label, none }) {
  if (!headers) return html`<p class="muted">${none}</p>`;
  return html`<dl class="facts headers" aria-label=${label}>
    ${Object.entries(headers).map(([name, value]) => html`<dt><code>${name}</code></dt><dd><code>${value}</code></dd>`)}
  </dl>`;
}

/** A body as sent or answered, formatted when it is JSON. */
function Body({ body, label, none }) {
  if (body === null || body === undefined || body === '') return html`<p class="muted">${none}</p>`;
  let shown = body;
  try {
    shown = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    // Not JSON: shown as received.
  }
  return html`<pre tabindex="0" aria-label=${label}>${shown}</pre>`;
}

/** Everything kept of attempt `a`, and its resend after a review when `onResend(a)` is given. */
export function AttemptDetail({ a, endpoint, onResend }) {
  const [reviewing, setReviewing] = useState(false);
  const canResend = Boolean(onResend) && a.event_code !== 'webhook.test';
  return html`<div class="attempt-detail" aria-label=${`Attempt ${attemptName(a)} of ${a.event_code}`}>
    <dl class="facts">
      <dt>Event</dt><dd>${a.event_code} <${Id} value=${a.event_id} label="event id" /></dd>
      <dt>Attempt</dt><dd>${a.number} (${a.trigger === 'MANUAL' ? 'asked for by a person' : 'automatic'}; ${a.attempt} of its delivery)</dd>
      <dt>Sent</dt><dd>${formatTime(a.started_at)}</dd>
      <dt>Duration</dt><dd>${a.duration_ms} ms</dd>
      <dt>Response status</dt><dd>${a.response_status ?? 'no response'}</dd>
      <dt>Error</dt><dd>${a.error ? reasonText(a.error, null) : '—'}</dd>
      <dt>Next retry</dt><dd>${formatTime(a.next_attempt_at)}</dd>
    </dl>
    <div class="exchange">
      <section aria-label="Request">
        <h4>Request headers</h4>
        <${HeaderList} headers=${a.request_headers} label=${`Request headers of attempt ${a.number}`} none="Not kept for this attempt." />
        <h4>Request body</h4>
        <${Body} body=${a.request_body} label=${`Request body of attempt ${a.number}`} none="Not kept for this attempt." />
      </section>
      <section aria-label="Response">
        <h4>Response headers</h4>
        <${HeaderList} headers=${a.response_headers} label=${`Response headers of attempt ${a.number}`} none="No response came." />
        <h4>Response body</h4>
        <${Body} body=${a.response_body} label=${`Response body of attempt ${a.number}`} none=${a.response_status === null ? 'No response came.' : 'Empty.'} />
      </section>
    </div>
    ${canResend && !reviewing
      ? html`<button type="button" class="secondary" onClick=${() => setReviewing(true)}>Resend this event…</button>`
      : null}
    ${reviewing
      ? html`<div class="card" role="group" aria-label="Review the resend">
          <p><strong>Resend ${a.event_code}</strong> to <code>${endpoint.url}</code>: the same body and <code>webhook-id</code> (${a.event_id}), a new
            <code>webhook-timestamp</code> and signature. It is recorded as a manual attempt, numbered after this event's attempts.</p>
          <div class="actions">
            <button type="button" onClick=${() => { setReviewing(false); onResend(a); }}>Confirm resend</button>
            <button type="button" class="secondary" onClick=${() => setReviewing(false)}>Cancel</button>
          </div>
        </div>`
      : null}
  </div>`;
}

/** The delivery log, newest first, with its filters, each attempt's detail, resend and recovery; `onRefresh` runs with "Refresh log" (the endpoint's health). */
export function DeliveryLog({ api, endpoint, path, onRefresh }) {
  const [form, setForm] = useState(NO_FILTER);
  const [filters, setFilters] = useState(NO_FILTER);
  const [checks, setChecks] = useState([]);
  const [pages, setPages] = useState(1);
  const [open, setOpen] = useState(null);
  const log = useLoad(async () => {
    const attempts = [];
    let cursor;
    const query = Object.fromEntries(Object.entries(filters).filter(([, v]) => v));
    for (let i = 0; i < pages; i++) {
      const page = await api.get(`${path}/attempts`, { query: { ...query, limit: 25, cursor } });
      attempts.push(...page.data);
      cursor = page.next_cursor;
      if (!page.has_more) return { attempts, more: false };
    }
    return { attempts, more: true };
  }, [api, path, filters, pages]);
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
      const r = await api.post(`${path}/recoveries`, { since: instant(since) });
      return `${r.recovered} failed ${r.recovered === 1 ? 'delivery is' : 'deliveries are'} queued again.`;
    });
  };
  const field = (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value.trim() });
  const apply = (e) => {
    e.preventDefault();
    const problems = filterProblems(form);
    setChecks(problems);
    if (problems.length) return;
    setOpen(null);
    setPages(1);
    setFilters(form);
  };
  return html`<section aria-labelledby="log-heading">
    <h3 id="log-heading">Delivery log</h3>
    <form class="filters" onSubmit=${apply} aria-label="Filter the delivery log">
      <div class="field">
        <label for="log-event-code">Event type</label>
        <select id="log-event-code" value=${form.event_code} onChange=${field('event_code')}>
          <option value="">Any type</option>
          ${[...EVENT_CODES, 'webhook.test'].map((c) => html`<option value=${c}>${c}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="log-outcome">Outcome</label>
        <select id="log-outcome" value=${form.outcome} onChange=${field('outcome')}>
          <option value="">All</option><option value="SUCCEEDED">Succeeded</option><option value="FAILED">Failed</option>
        </select>
      </div>
      <div class="field">
        <label for="log-event-id">Event id</label>
        <input id="log-event-id" value=${form.event_id} onInput=${field('event_id')} autocomplete="off" spellcheck="false" />
      </div>
      <div class="field">
        <label for="log-payout-id">Payout id</label>
        <input id="log-payout-id" value=${form.payout_id} onInput=${field('payout_id')} autocomplete="off" spellcheck="false" />
      </div>
      <button type="submit">Show attempts</button>
      <button type="button" class="secondary" onClick=${() => { log.reload(); onRefresh?.(); }}>Refresh log</button>
      <${ExportCsv} api=${api} path=${`${path}/attempts.csv`} query=${Object.fromEntries(Object.entries(filters).filter(([, v]) => v))} filename=${`attempts-${endpoint.id}.csv`} />
    </form>
    ${checks.length ? html`<div class="problem" role="alert">${checks.map((c) => html`<p>${c}</p>`)}</div>` : null}
    <form class="inline" onSubmit=${recover}>
      <label for="recover-since">Failures since</label>
      <input id="recover-since" type="datetime-local" value=${since} onInput=${(e) => setSince(e.currentTarget.value)} required />
      <button type="submit" class="secondary">Recover failures</button>
    </form>
    <${Problem} error=${error} />
    <${Problem} error=${log.error} onRetry=${log.reload} />
    ${result ? html`<p role="status">${result}</p>` : null}
    ${log.data
      ? html`<${Table} caption="Delivery attempts, newest first" className="log" rows=${log.data.attempts} empty="No attempt matches."
          detail=${(a) => (open === a.id ? html`<${AttemptDetail} a=${a} endpoint=${endpoint} onResend=${resend} />` : null)}
          columns=${[
            { key: 'started_at', title: 'Sent', render: (a) => formatTime(a.started_at) },
            { key: 'event_code', title: 'Event', render: (a) => html`<code>${a.event_code}</code>` },
            { key: 'number', title: 'Attempt', render: (a) => attemptName(a) },
            { key: 'outcome', title: 'Outcome', render: (a) => html`<span class=${a.outcome === 'SUCCEEDED' ? 'status-ok' : 'status-bad'}>${outcomeText(a)}</span>` },
            { key: 'duration_ms', title: 'Duration', num: true, render: (a) => `${a.duration_ms} ms` },
            { key: 'open', title: 'Details', render: (a) => {
              const text = open === a.id ? 'Close' : 'Open';
              return html`<${RowToggle} id=${a.id} open=${open} setOpen=${setOpen} label=${`${text} attempt ${a.number} of ${a.event_code} ${a.event_id}`} text=${text} />`;
            } },
          ]} />
        ${log.data.more ? html`<button type="button" class="secondary" onClick=${() => setPages(pages + 1)}>Older attempts</button>` : null}`
      : html`<p role="status">Loading the log…</p>`}
  </section>`;
}
