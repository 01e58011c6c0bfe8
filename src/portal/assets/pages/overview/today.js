/**
 * The Overview's "Payouts today": the payouts created since midnight in the business's time
 * zone, their volume (the sum of their amounts, with the currency) and how many completed, are
 * still pending (PENDING or PROCESSING) or failed, from one request (core `getPayoutSummary`
 * with the day's two instants), however many payouts the day holds; a red alert when any failed.
 */
import { html } from '../../preact-htm.js';
import { Money, Problem, formatMoney, plural, useLoad } from '../../ui.js';

/** The calendar fields of instant `at` in `timeZone`: year, month, day, hour, minute, second. */
function fieldsIn(timeZone, at) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  });
  return Object.fromEntries(format.formatToParts(at).filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
}

/** How far `timeZone`'s wall clock is ahead of UTC at instant `ms`, in milliseconds. */
function offsetAt(timeZone, ms) {
  const f = fieldsIn(timeZone, new Date(ms));
  return Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second) - Math.floor(ms / 1000) * 1000;
}

/** The instant of midnight starting day `day` of `month` (1-12) of `year` on `timeZone`'s wall clock (day past the month's end rolls over). */
function midnight(timeZone, year, month, day) {
  const wall = Date.UTC(year, month - 1, day);
  // The offset at the guess, then at the instant it gives: right across a change of offset too.
  const guess = wall - offsetAt(timeZone, wall);
  return new Date(wall - offsetAt(timeZone, guess));
}

/**
 * The day holding `now` in `timeZone` (an IANA name; the browser's zone when it is not one),
 * as the instants `{ from, to }` (ISO) of its start and of the next day's.
 */
export function dayIn(timeZone, now = new Date()) {
  let zone = timeZone;
  try {
    fieldsIn(zone, now);
  } catch {
    zone = undefined;
  }
  const f = fieldsIn(zone, now);
  return { from: midnight(zone, f.year, f.month, f.day).toISOString(), to: midnight(zone, f.year, f.month, f.day + 1).toISOString() };
}

/** Today's payouts of the business `business` (its `time_zone`): volume, counts, and an alert for the failed. */
export function PayoutsToday({ api, business }) {
  const summary = useLoad(() => api.get('/payout-summary', { query: dayIn(business.time_zone) }), [api, business.time_zone]);
  const s = summary.data;
  const pending = s ? s.by_status.PENDING.count + s.by_status.PROCESSING.count : 0;
  return html`<section aria-labelledby="today-heading">
    <h2 id="today-heading">Payouts today</h2>
    <${Problem} error=${summary.error} onRetry=${summary.reload} />
    ${s && s.by_status.FAILED.count > 0
      ? html`<div class="problem" role="alert">
          <strong>${plural(s.by_status.FAILED.count, 'payout', 'payouts')} failed today</strong>
          <p>${formatMoney(s.by_status.FAILED.amount, s.currency)} did not reach ${s.by_status.FAILED.count === 1 ? 'its customer' : 'their customers'}. <a href="#payouts">See the failed payouts on the Payouts page</a></p>
        </div>`
      : null}
    ${s
      ? html`<dl class="today-figures" aria-label="Payouts today">
          <div><dt>Volume</dt><dd><${Money} amount=${s.total.amount} currency=${s.currency} /></dd></div>
          <div><dt>Payouts</dt><dd>${formatMoney(String(s.total.count))}</dd></div>
          <div><dt>Completed</dt><dd>${formatMoney(String(s.by_status.COMPLETED.count))}</dd></div>
          <div><dt>Pending</dt><dd>${formatMoney(String(pending))}</dd></div>
          <div><dt>Failed</dt><dd>${formatMoney(String(s.by_status.FAILED.count))}</dd></div>
        </dl>
        <p class="muted">Since midnight in ${business.time_zone}.</p>`
      : summary.loading
        ? html`<p role="status">Loading today’s payouts…</p>`
        : null}
  </section>`;
}
