/**
 * The webhook endpoints' health as the service computes it (closed-loop
 * `listWebhookEndpointHealth`: each endpoint with its `state`, `failing_since`,
 * `last_success_at`, `last_failure` and its attempts of the last 24 hours per hour), and how
 * the portal shows it: a badge ("Disabled: <reason>" and "Failing" in red, else "Healthy"),
 * the success rate, the failure's reason, and a chart of the attempts per hour.
 */
import { html } from '../../preact-htm.js';
import { formatHour, formatTime, plural, words } from '../../ui.js';

export const HEALTH = '/cl/v1/webhooks/endpoint-health';

/** Every endpoint of the business with its health, following `next_cursor` (a page holds 100). */
export async function allEndpointHealth(api) {
  const found = [];
  let cursor;
  do {
    const page = await api.get(HEALTH, { query: { limit: 100, cursor } });
    found.push(...page.data);
    cursor = page.has_more ? page.next_cursor : undefined;
  } while (cursor);
  return found;
}

/** The success rate as text: "92% of 25 attempts", "No attempts". */
export function rateText(health) {
  if (!health) return '…';
  const { succeeded, failed } = health.attempts_24h;
  const total = succeeded + failed;
  if (total === 0) return 'No attempts';
  return `${Math.round((succeeded / total) * 100)}% of ${plural(total, 'attempt')}`;
}

/** Reason phrases of the statuses a receiver most often answers (RFC 9110 §15). */
const STATUS_PHRASES = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout',
  409: 'Conflict', 410: 'Gone', 413: 'Content Too Large', 422: 'Unprocessable Content', 429: 'Too Many Requests',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/** What an attempt's `error` (sender.ts's words, or a Node.js error code) means, for the codes met most often. */
const ERROR_WORDS = [
  [/^ECONNREFUSED/, 'the endpoint refused the connection'],
  [/^ENOTFOUND|^EAI_AGAIN/, 'the endpoint\'s host name does not resolve'],
  [/^ECONNRESET|socket hang up/, 'the endpoint closed the connection'],
  [/^EHOSTUNREACH|^ENETUNREACH/, 'the endpoint\'s host cannot be reached'],
  [/CERT|SSL|TLS/i, 'the endpoint\'s TLS certificate was not accepted'],
  [/^URL not allowed/, 'the endpoint\'s address is not allowed'],
];

/**
 * Why an attempt failed, in words: "HTTP 503 Service Unavailable", "no answer within 15 s",
 * "the endpoint refused the connection (ECONNREFUSED: …)"; the service's own text otherwise.
 */
export function reasonText(error, status) {
  if (status !== null && status !== undefined) return `HTTP ${status}${STATUS_PHRASES[status] ? ` ${STATUS_PHRASES[status]}` : ''}`;
  if (!error) return '—';
  const timeout = /^timed out after (\d+) ms/.exec(error);
  if (timeout) return `no answer within ${Math.round(Number(timeout[1]) / 1000)} s`;
  const known = ERROR_WORDS.find(([pattern]) => pattern.test(error));
  return known ? `${known[1]} (${error})` : error;
}

/** Why the newest failed attempt failed, in words: "HTTP 500 Internal Server Error at 21 Nov 10:15", or "—". */
export function failureText(health) {
  const failure = health?.last_failure;
  if (!failure) return '—';
  return `${reasonText(failure.error, failure.response_status)} at ${formatTime(failure.started_at)}`;
}

/** The endpoint's badge: red "Disabled: <reason>" or "Failing", else "Healthy" (or its status while health loads). */
export function HealthBadge({ endpoint, health }) {
  if (endpoint.status !== 'ENABLED') {
    const reason = endpoint.disabled_reason ? `: ${words(endpoint.disabled_reason).toLowerCase()}` : '';
    return html`<span class="badge-bad" data-health="disabled">Disabled${reason}</span>`;
  }
  if (health?.state === 'FAILING') return html`<span class="badge-bad" data-health="failing">Failing</span>`;
  if (!health) return html`<span class="badge-ok">Enabled</span>`;
  return html`<span class="badge-ok" data-health="healthy">Healthy</span>`;
}

/**
 * The attempts per hour of the last 24 hours as stacked bars (succeeded below, failed above
 * in the alarm colour), with the largest count on the value axis and the first and last hour
 * on the time axis; drawn with attributes only (the page's CSP allows no inline style).
 */
export function AttemptsChart({ health }) {
  const hours = health.hourly;
  const most = Math.max(1, ...hours.map((h) => h.succeeded + h.failed));
  const y = (n) => (n / most) * 80;
  const { succeeded, failed } = health.attempts_24h;
  const label = `Attempts per hour over the last 24 hours: ${succeeded} succeeded, ${failed} failed; at most ${plural(most, 'attempt')} in an hour.`;
  return html`<figure class="card attempts-chart">
    <figcaption>Attempts per hour, last 24 hours</figcaption>
    <svg class="chart" viewBox="0 0 320 110" role="img" aria-label=${label}>
      <text x="0" y="10" class="axis">${most}</text>
      <text x="0" y="90" class="axis">0</text>
      <line x1="20" y1="90" x2="320" y2="90" stroke="currentColor" stroke-opacity="0.4" />
      ${hours.map((h, i) => {
        const x = 22 + i * 12.4;
        return html`<g key=${h.hour}>
          <rect x=${x} y=${90 - y(h.succeeded)} width="10" height=${y(h.succeeded)} class="bar-ok"><title>${formatHour(h.hour)}: ${h.succeeded} succeeded</title></rect>
          <rect x=${x} y=${90 - y(h.succeeded) - y(h.failed)} width="10" height=${y(h.failed)} class="bar-bad"><title>${formatHour(h.hour)}: ${h.failed} failed</title></rect>
        </g>`;
      })}
      <text x="22" y="106" class="axis">${formatHour(hours[0].hour)}</text>
      <text x="320" y="106" class="axis" text-anchor="end">${formatHour(hours.at(-1).hour)}</text>
    </svg>
  </figure>`;
}
