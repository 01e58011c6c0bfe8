/**
 * A payout's timeline: its creation, then each event the service recorded for it, oldest
 * first. Built from core `listEvents` (the events page's operation): the business's events
 * from the payout's creation on, newest first, kept when their `data.payout_id` is the
 * payout's. At most MAX_PAGES pages of 100 are read; a payout whose events lie further
 * than that says so rather than show a partial story as whole.
 */
import { html } from '../../preact-htm.js';
import { Problem, useLoad, words } from '../../ui.js';
import { When } from '../../lists.js';

/** Pages of listEvents read for one timeline (100 events each). */
const MAX_PAGES = 5;

/** The payout's events, oldest first, and whether the reading stopped before the end. */
async function payoutEvents(api, payout) {
  const found = [];
  let cursor;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await api.get('/events', { query: { created_from: payout.created_at, limit: 100, cursor } });
    found.push(...page.data.filter((e) => e.data?.payout_id === payout.payout_id));
    if (!page.has_more) return { events: found.reverse(), partial: false };
    cursor = page.next_cursor;
  }
  return { events: found.reverse(), partial: true };
}

/** The timeline of `payout` (a Payout of the documents). */
export function PayoutTimeline({ api, payout }) {
  const timeline = useLoad(() => payoutEvents(api, payout), [api, payout.payout_id, payout.updated_at]);
  const title = `payout-timeline-${payout.payout_id}`;
  return html`<section aria-labelledby=${title}>
    <h3 id=${title}>Timeline</h3>
    <${Problem} error=${timeline.error} onRetry=${timeline.reload} />
    ${timeline.loading && !timeline.data ? html`<p role="status">Loading the timeline…</p>` : null}
    ${timeline.data
      ? html`<ol class="timeline" aria-label="Payout timeline">
          <li><strong>Created</strong> · <${When} at=${payout.created_at} /></li>
          ${timeline.data.events.map(
            (e) => html`<li key=${e.id} data-code=${e.code}>
              <strong>${words(e.code)}</strong> · <${When} at=${e.data.occurred_at ?? e.created_at} />
              ${e.data.failure_code ? html` · ${words(e.data.failure_code)}` : null}
            </li>`,
          )}
        </ol>
        ${timeline.data.partial ? html`<p class="muted">Only the ${MAX_PAGES * 100} newest events since the payout was created were read; earlier steps may be missing.</p>` : null}`
      : null}
  </section>`;
}
