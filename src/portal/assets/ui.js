/**
 * Components and formatting shared by the portal's pages: a problem (an ApiError shown
 * to the user), a table, money and time formatting, and a loader hook. Money amounts are
 * decimal strings from the API and are formatted as strings: never converted to a JS
 * number, so no amount is rounded.
 */
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

/** An ISO timestamp as local date and time (`—` for null). */
export function formatTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

/** The problem of a failed call, for the user: title, detail and the invalid fields. Nothing when `error` is null. */
export function Problem({ error }) {
  if (!error) return null;
  const title = error.title ?? 'Something went wrong';
  const detail = error.detail ?? (error.title ? '' : String(error.message ?? error));
  return html`<div class="problem" role="alert">
    <strong>${title}</strong>
    ${detail ? html`<p>${detail}</p>` : null}
    ${error.errors?.length
      ? html`<ul>${error.errors.map((e) => html`<li>${e.pointer ? html`<code>${e.pointer}</code>: ` : null}${e.detail}</li>`)}</ul>`
      : null}
  </div>`;
}

/**
 * A table: `columns` is `[{ key, title, render?(row) }]`, `rows` an array, `caption` its
 * accessible name, `empty` the text when there are no rows, `rowKey(row)` (default `row.id`).
 */
export function Table({ columns, rows, caption, empty = 'Nothing yet.', rowKey = (r) => r.id }) {
  if (!rows?.length) return html`<p class="empty">${empty}</p>`;
  return html`<div class="table-wrap"><table>
    ${caption ? html`<caption>${caption}</caption>` : null}
    <thead><tr>${columns.map((c) => html`<th scope="col">${c.title}</th>`)}</tr></thead>
    <tbody>${rows.map((row) => html`<tr key=${rowKey(row)}>${columns.map((c) => html`<td>${c.render ? c.render(row) : row[c.key]}</td>`)}</tr>`)}</tbody>
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
