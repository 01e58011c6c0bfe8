/**
 * The Overview's history of the business's own accounts over the last 30 days, drawn from
 * the ledger (core `listBusinessTransactions`, newest first, from 30 days ago): each entry
 * on an account carries the account's `balance_after`, so the balance after each movement
 * is read, not computed. At most MAX_PAGES pages of 100 transactions are read; a busier
 * month draws its newest part and says so.
 *
 * Amounts stay decimal strings (or exact cents): they are converted to numbers only to place a
 * point on the drawing (a pixel needs no cent), never for a figure shown. The drawing has its
 * axes with their values; an account that did not move in the period gets a sentence instead.
 */
import { html } from '../../preact-htm.js';
import { formatMoney } from '../../ui.js';
import { cents, fromCents as amountOf } from '../../amounts.js';

/** Days of history. */
export const DAYS = 30;
const MAX_PAGES = 5;

/** The business's transactions of the last DAYS days, newest first, and whether the reading stopped early. */
export async function recentTransactions(api, now = new Date()) {
  const from = new Date(now.getTime() - DAYS * 86_400_000).toISOString();
  const found = [];
  let cursor;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await api.get('/transactions', { query: { created_from: from, limit: 100, cursor } });
    found.push(...page.data);
    if (!page.has_more) return { transactions: found, partial: false, from };
    cursor = page.next_cursor;
  }
  return { transactions: found, partial: true, from };
}

/**
 * The points `{ at, balance }` of `accountNumber` over the DAYS days from `from`, oldest first:
 * the balance at `from` (before the first movement since, read back from that movement's
 * entry), the balance after each movement, and its balance `now`. A balance is a decimal string.
 */
export function balancePoints(transactions, accountNumber, balance, from, now = new Date()) {
  const points = [];
  let first = null;
  for (const t of transactions) {
    for (const e of t.entries ?? []) {
      if (e.account_number !== accountNumber) continue;
      points.push({ at: t.created_at, balance: e.balance_after });
      first = e;
    }
  }
  points.reverse();
  const signed = first ? (first.direction === 'DEBIT' ? -cents(first.amount) : cents(first.amount)) : 0n;
  const opening = first ? amountOf(cents(first.balance_after) - signed) : balance;
  return [{ at: from, balance: opening }, ...points, { at: now.toISOString(), balance }];
}

/** Whether the account moved in the period: a chart of a flat line says less than a sentence. */
export const moved = (points) => points.length > 2;

/** A date as "7 Dec" in `timeZone` (the business's; the browser's when unknown). */
function dayLabel(at, timeZone) {
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'short' }).format(new Date(at));
  } catch {
    return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' }).format(new Date(at));
  }
}

/** The drawing's box (viewBox units): the plot between the value axis on the left and the time axis below. */
const BOX = { width: 320, height: 150, left: 74, right: 312, top: 10, bottom: 118 };

/**
 * A step line of `points` (balancePoints) from `from` to now, with its axes: the highest and
 * the lowest balance (and zero when the line crosses it) on the value axis, the first and the
 * last day on the time axis, in `timeZone`. An SVG drawn with attributes only (the page's CSP
 * allows no inline style); `label` names it for a screen reader.
 */
export function BalanceChart({ points, label, from, timeZone, now = new Date() }) {
  const start = new Date(from).getTime();
  const span = now.getTime() - start || 1;
  const exact = points.map((p) => cents(p.balance));
  const high = exact.reduce((a, b) => (b > a ? b : a));
  const low = exact.reduce((a, b) => (b < a ? b : a));
  // Numbers only place points: a pixel needs no cent, and every figure shown is a decimal string.
  const range = Number(high - low) || 1;
  const x = (at) => BOX.left + Math.max(0, Math.min(1, (new Date(at).getTime() - start) / span)) * (BOX.right - BOX.left);
  const y = (c) => (high === low ? (BOX.top + BOX.bottom) / 2 : BOX.bottom - (Number(c - low) / range) * (BOX.bottom - BOX.top));
  const coords = [];
  points.forEach((p, i) => {
    if (i > 0) coords.push(`${x(p.at).toFixed(1)},${y(exact[i - 1]).toFixed(1)}`);
    coords.push(`${x(p.at).toFixed(1)},${y(exact[i]).toFixed(1)}`);
  });
  const ticks = [high, ...(low < 0n && high > 0n ? [0n] : []), ...(low !== high ? [low] : [])];
  return html`<svg class="chart balance-chart" viewBox=${`0 0 ${BOX.width} ${BOX.height}`} role="img" aria-label=${label}>
    <line class="axis-line" x1=${BOX.left} y1=${BOX.top} x2=${BOX.left} y2=${BOX.bottom} />
    <line class="axis-line" x1=${BOX.left} y1=${BOX.bottom} x2=${BOX.right} y2=${BOX.bottom} />
    ${ticks.map((c) => html`<g key=${String(c)}>
      <line class="grid-line" x1=${BOX.left} y1=${y(c)} x2=${BOX.right} y2=${y(c)} />
      <text class="axis value" x=${BOX.left - 4} y=${y(c) + 4} text-anchor="end">${formatMoney(amountOf(c))}</text>
    </g>`)}
    <text class="axis day" x=${BOX.left} y=${BOX.bottom + 16} text-anchor="start">${dayLabel(from, timeZone)}</text>
    <text class="axis day" x=${BOX.right} y=${BOX.bottom + 16} text-anchor="end">${dayLabel(now, timeZone)}</text>
    <polyline points=${coords.join(' ')} />
  </svg>`;
}
