/**
 * A webhook endpoint's health as the portal shows it, computed from its delivery attempts
 * (closed-loop `listWebhookDeliveryAttempts`, newest first, filtered by outcome and time):
 *
 * - success rate over the last 24 hours: the attempts started since then that succeeded,
 *   over all of them (at most MAX_PAGES pages of 100 are read; more make it "at least");
 * - last success: the newest SUCCEEDED attempt, of any age;
 * - failing: the newest attempt failed; failing since: the oldest FAILED attempt after the
 *   last success (the first failure of the current run).
 *
 * The badge reads "Disabled: <reason>" for a disabled endpoint, "Failing" for a failing
 * one (both red), "Healthy" otherwise.
 */
import { html } from '../../preact-htm.js';
import { words } from '../../ui.js';

/** Pages of 100 attempts read for one figure. */
const MAX_PAGES = 10;

/** Every attempt of `path` matching `query`, newest first, and whether MAX_PAGES stopped the reading. */
async function attempts(api, path, query) {
  const found = [];
  let cursor;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await api.get(`${path}/attempts`, { query: { ...query, limit: 100, cursor } });
    found.push(...page.data);
    if (!page.has_more) return { found, capped: false };
    cursor = page.next_cursor;
  }
  return { found, capped: true };
}

/**
 * The health of `endpoint` (a WebhookEndpoint) at `now`:
 * `{ succeeded, total, capped, lastSuccess, failing, failingSince }` (times ISO strings or null).
 */
export async function endpointHealth(api, endpoint, now = new Date()) {
  const path = `/cl/v1/webhooks/endpoints/${endpoint.id}`;
  const since = new Date(now.getTime() - 86_400_000).toISOString();
  const [day, success, newest] = await Promise.all([
    attempts(api, path, { created_from: since }),
    api.get(`${path}/attempts`, { query: { outcome: 'SUCCEEDED', limit: 1 } }),
    api.get(`${path}/attempts`, { query: { limit: 1 } }),
  ]);
  const lastSuccess = success.data[0]?.started_at ?? null;
  const failing = newest.data[0]?.outcome === 'FAILED';
  let failingSince = null;
  if (failing) {
    const run = await attempts(api, path, { outcome: 'FAILED', created_from: lastSuccess ?? undefined });
    failingSince = run.found.at(-1)?.started_at ?? null;
  }
  const succeeded = day.found.filter((a) => a.outcome === 'SUCCEEDED').length;
  return { succeeded, total: day.found.length, capped: day.capped, lastSuccess, failing, failingSince };
}

/** The success rate as text: "92% of 25 attempts", "No attempts". */
export function rateText(health) {
  if (!health) return '…';
  if (health.total === 0) return 'No attempts';
  const percent = Math.round((health.succeeded / health.total) * 100);
  return `${percent}% of ${health.capped ? 'at least ' : ''}${health.total} ${health.total === 1 ? 'attempt' : 'attempts'}`;
}

/** The endpoint's badge: red "Disabled: <reason>" or "Failing", else "Healthy" (or its status while health loads). */
export function HealthBadge({ endpoint, health }) {
  if (endpoint.status !== 'ENABLED') {
    const reason = endpoint.disabled_reason ? `: ${words(endpoint.disabled_reason).toLowerCase()}` : '';
    return html`<span class="badge-bad" data-health="disabled">Disabled${reason}</span>`;
  }
  if (health?.failing) return html`<span class="badge-bad" data-health="failing">Failing</span>`;
  if (!health) return html`<span class="badge-ok">Enabled</span>`;
  return html`<span class="badge-ok" data-health="healthy">Healthy</span>`;
}
