/**
 * The Overview's history of the business's own accounts over the last 30 days, drawn from
 * the ledger (core `listBusinessTransactions`, newest first, from 30 days ago): each entry
 * on an account carries the account's `balance_after`, so the balance after each movement
 * is read, not computed. At most MAX_PAGES pages of 100 transactions are read; a busier
 * month draws its newest part and says so.
 *
 * Amounts stay decimal strings: they are converted to numbers only to place a point on the
 * drawing (a pixel needs no cent), never for a figure shown.
 */
import { html } from '../../preact-htm.js';

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

/** The points `{ at, balance }` of `accountNumber`, oldest first, ending with its balance `now`. */
export function balancePoints(transactions, accountNumber, balance, now = new Date()) {
  const points = [];
  for (const t of transactions) {
    for (const e of t.entries ?? []) {
      if (e.account_number === accountNumber) points.push({ at: t.created_at, balance: e.balance_after });
    }
  }
  points.reverse();
  points.push({ at: now.toISOString(), balance });
  return points;
}

/**
 * A step line of `points` over the last DAYS days (an SVG drawn with attributes only: the
 * page's CSP allows no inline style); `label` names it for a screen reader.
 */
export function BalanceChart({ points, label, from, now = new Date() }) {
  const start = new Date(from).getTime();
  const span = now.getTime() - start || 1;
  const values = points.map((p) => Number(p.balance));
  const min = Math.min(...values);
  const max = Math.max(...values);
  const range = max - min || 1;
  const x = (at) => Math.max(0, ((new Date(at).getTime() - start) / span) * 300);
  const y = (v) => 95 - ((v - min) / range) * 90;
  const coords = [];
  points.forEach((p, i) => {
    if (i > 0) coords.push(`${x(p.at).toFixed(1)},${y(values[i - 1]).toFixed(1)}`);
    coords.push(`${x(p.at).toFixed(1)},${y(values[i]).toFixed(1)}`);
  });
  return html`<svg class="chart" viewBox="0 0 300 100" preserveAspectRatio="none" role="img" aria-label=${label}>
    <line x1="0" y1="99" x2="300" y2="99" stroke="currentColor" stroke-opacity="0.3" vector-effect="non-scaling-stroke" />
    <polyline points=${coords.join(' ')} />
  </svg>`;
}
