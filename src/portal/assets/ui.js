/**
 * Components and formatting shared by the portal's pages: a problem (an ApiError shown
 * to the user, with a Retry button for a failed load), a table, money and time formatting,
 * enum values and counts as words, a copy button, and a loader hook. Money amounts are
 * decimal strings from the API and are formatted as strings: never converted to a JS
 * number, so no amount is rounded.
 */
import { fieldName, fieldProblem, retryable } from './problems.js';
import { html, useCallback, useEffect, useState } from './preact-htm.js';

/**
 * `amount` (a decimal string such as `"-12345.50"`) with thousands separators, and the
 * currency code when given: `"12,345.50 SAR"`. String operations only.
 */
export function formatMoney(amount, currency) {
  if (amount === null || amount === undefined) return '';
  const text = String(amount);
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  if (!m) return currency ? `${text} ${currency}` : text;
  const grouped = m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const value = `${m[1]}${grouped}${m[3] ?? ''}`;
  return currency ? `${value} ${currency}` : value;
}

/** An amount in tabular figures with its currency (`Money amount="12.50" currency="SAR"`); a negative one in red (`.negative`). */
export const Money = ({ amount, currency }) =>
  html`<span class=${/^\s*-/.test(String(amount ?? '')) ? 'money negative' : 'money'}>${formatMoney(amount, currency)}</span>`;

/**
 * An enum value of the documents as words: `CUSTOMER_PAYOUT_COMPLETION` reads
 * "Customer payout completion", `payout.completed` reads "Payout completed". Null reads `—`.
 */
export function words(value) {
  if (value === null || value === undefined || value === '') return '—';
  const text = String(value).replace(/[_.]+/g, ' ').trim().toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * `count` with its noun in the right number: `plural(1, 'row')` is "1 row", `plural(3, 'payout')`
 * "3 payouts", `plural(2, 'delivery', 'deliveries')` "2 deliveries"; counts get thousands separators.
 */
export function plural(count, one, many = `${one}s`) {
  return `${formatMoney(String(count))} ${count === 1 ? one : many}`;
}

/**
 * A button that copies `text` to the clipboard (an id, a secret); `label` names what it copies
 * for screen readers ("Copy payout id"). Says "Copied" for a moment, or "Copy failed" when
 * the browser refuses the clipboard (the text stays selectable beside it).
 */
export function CopyButton({ text, label = 'Copy' }) {
  const [state, setState] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('Copied');
    } catch {
      setState('Copy failed');
    }
    setTimeout(() => setState(''), 2000);
  };
  return html`<button type="button" class="copy" aria-label=${label} title=${label} onClick=${copy}>${state || 'Copy'}</button>`;
}

/**
 * A row's disclosure button: shows `text` ("Open"), says whether the row `id` is the one
 * open (`aria-expanded`), and opens it or closes it again (`setOpen(id | null)`).
 * `label` names it for screen readers ("Open payout …").
 */
export function RowToggle({ id, open, setOpen, label, text = 'Open' }) {
  return html`<button type="button" class="secondary" aria-expanded=${open === id}
    aria-label=${label} onClick=${() => setOpen(open === id ? null : id)}>${text}</button>`;
}

/** An identifier in code type with its copy button; `label` names it ("payout id"). Null reads `—`. */
export function Id({ value, label = 'id' }) {
  if (!value) return '—';
  return html`<span class="id"><code>${value}</code> <${CopyButton} text=${value} label=${`Copy ${label} ${value}`} /></span>`;
}

/** A `datetime-local` or `date` input's value (the user's local time) as the documents' Timestamp; undefined when empty. */
export function instant(local) {
  if (!local) return undefined;
  const at = new Date(local.length === 10 ? `${local}T00:00` : local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The formats of dates (day, month, year, 24-hour time and the zone: "7 Dec 2026, 14:23:05 GMT+3") and hours, in `timeZone`. */
function dateFormats(timeZone) {
  const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
    timeZone, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short',
  });
  return { DATE_TIME, HOUR: new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }) };
}

let { DATE_TIME, HOUR } = dateFormats(undefined);

/** Shows every date from now on in `timeZone` (the business's `time_zone`, an IANA name); the browser's zone when it is unknown. */
export function setTimeZone(timeZone) {
  try {
    ({ DATE_TIME, HOUR } = dateFormats(timeZone));
  } catch {
    ({ DATE_TIME, HOUR } = dateFormats(undefined));
  }
}

/** An ISO timestamp as date, time and time zone (`—` for null), the same on every page, in the business's zone. */
export function formatTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : DATE_TIME.format(d);
}

/** An ISO timestamp's time of day, "14:00" (in the zone formatTime names). */
export function formatHour(iso) {
  return HOUR.format(new Date(iso));
}

/**
 * The problem of a failed call, for the user: title, detail and the invalid fields in words
 * (./problems.js), and a Retry button when `onRetry` is given and trying again can help (no
 * answer, a time-out, 429, a 5xx: never for a request the service refused as it stands).
 * Nothing when `error` is null.
 */
export function Problem({ error, onRetry }) {
  if (!error) return null;
  const title = error.title ?? 'Something went wrong';
  // With fields listed, each says what is wrong in words: the detail would repeat them raw.
  const detail = error.errors?.length ? '' : (error.detail ?? (error.title ? '' : String(error.message ?? error)));
  return html`<div class="problem" role="alert">
    <strong>${title}</strong>
    ${detail ? html`<p>${detail}</p>` : null}
    ${error.errors?.length
      ? html`<ul>${error.errors.map((e) => html`<li>${e.pointer ? `${fieldName(e.pointer)} ` : null}${fieldProblem(e.pointer ?? '', e.detail)}</li>`)}</ul>`
      : null}
    ${onRetry && retryable(error) ? html`<p><button type="button" class="secondary" onClick=${onRetry}>Retry</button></p>` : null}
  </div>`;
}

/**
 * A table: `columns` is `[{ key, title, render?(row), num? }]` (`num`: a
 * number or amount, right-aligned), `rows` an array, `caption` its
 * accessible name, `empty` the text when there are no rows, `rowKey(row)` (default `row.id`),
 * `detail(row)` what to show in a full-width row right below it (null for none), `className` the table's class.
 */
export function Table({ columns, rows, caption, empty = 'Nothing yet.', rowKey = (r) => r.id, detail, className }) {
  if (!rows?.length) return html`<p class="empty">${empty}</p>`;
  // A wide screen shows a table; a phone, each row as stacked "label: value" lines (style.css,
  // each cell's data-label). The box takes the focus so that a keyboard can scroll a wide one.
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label=${caption ?? 'Table'}><table class=${className}>
    ${caption ? html`<caption>${caption}</caption>` : null}
    <thead><tr>${columns.map((c) => html`<th scope="col" class=${c.num ? 'num' : undefined}>${c.title}</th>`)}</tr></thead>
    <tbody>${rows.map((row) => {
      const more = detail?.(row);
      return html`<tr key=${rowKey(row)}>${columns.map((c) => html`<td class=${c.num ? 'num' : undefined} data-label=${c.title}>${c.render ? c.render(row) : row[c.key]}</td>`)}</tr>
        ${more ? html`<tr class="detail" key=${`${rowKey(row)}-detail`}><td colspan=${columns.length}>${more}</td></tr>` : null}`;
    })}</tbody>
  </table></div>`;
}

/**
 * Runs `load()` now and whenever `deps` change: `{ data, error, loading, reload }`.
 * `error` is the ApiError when the load failed.
 */
export function useLoad(load, deps = []) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, deps);
  const reload = useCallback(async () => {
    setState((s) => ({ ...s, loading: true }));
    try {
      setState({ data: await run(), error: null, loading: false });
    } catch (error) {
      setState({ data: null, error, loading: false });
    }
  }, [run]);
  useEffect(() => {
    reload();
  }, [reload]);
  return { ...state, reload };
}

/** A labelled text input; `onInput(value)`. */
export function Field({ id, label, value, onInput, type = 'text', required = false, autocomplete = 'off', hint }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input id=${id} type=${type} value=${value} required=${required} autocomplete=${autocomplete}
      aria-describedby=${hint ? `${id}-hint` : undefined} onInput=${(e) => onInput(e.currentTarget.value)} />
    ${hint ? html`<small id=${`${id}-hint`}>${hint}</small>` : null}
  </div>`;
}

/**
 * A form's submit handler that runs `action()`: `{ onSubmit, busy, error }`, `error` being
 * what `action` threw (an ApiError to show with Problem). The browser's own submission is
 * prevented (the CSP's `form-action 'none'` forbids it anyway).
 */
export function useSubmit(action) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (e) => {
    e?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { onSubmit, busy, error };
}
