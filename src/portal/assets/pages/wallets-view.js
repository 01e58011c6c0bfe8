/**
 * View pieces the Wallets, Events, Payouts and Sandbox pages share: a problem shown as the
 * service worded it, a table with column headers and a caption, a cursor pager, and a hook
 * that runs one request at a time and keeps its error.
 */
import { html, useState } from '../preact-htm.js';

/**
 * A failed request as the user reads it: the problem's title and detail (RFC 9457, from an
 * ApiError) and the fields it names; anything else by its message.
 * @param {{ error: any }} props
 */
export function ErrorNote({ error }) {
  if (!error) return null;
  const fields = Array.isArray(error.errors) ? error.errors : [];
  return html`<div role="alert" class="problem">
    <strong>${error.title ?? 'Request failed'}</strong>
    ${error.detail ? html` <span>${error.detail}</span>` : error.title ? null : html` <span>${String(error.message ?? error)}</span>`}
    ${error.code ? html` <code>${error.code}</code>` : null}
    ${fields.length > 0 ? html`<ul>${fields.map((f) => html`<li>${f.pointer ?? ''} ${f.detail ?? f.message ?? ''}</li>`)}</ul>` : null}
  </div>`;
}

/**
 * A table with a caption and one header cell per column.
 * @param {{ caption: string, columns: { label: string, value: (row: any) => any }[], rows: any[], rowKey?: (row: any) => string, empty?: string }} props
 */
export function DataTable({ caption, columns, rows, rowKey, empty = 'Nothing to show.' }) {
  if (rows.length === 0) return html`<p>${caption}: ${empty}</p>`;
  return html`<table>
    <caption>${caption}</caption>
    <thead><tr>${columns.map((c) => html`<th scope="col">${c.label}</th>`)}</tr></thead>
    <tbody>${rows.map((row, i) => html`<tr key=${rowKey ? rowKey(row) : i}>${columns.map((c) => html`<td>${c.value(row)}</td>`)}</tr>`)}</tbody>
  </table>`;
}

/**
 * Buttons for a cursor-paged list (`{data, has_more, next_cursor}`): back to the first page,
 * and on to the next while `has_more`.
 * @param {{ page: any, onFirst: () => void, onNext: (cursor: string) => void, label: string, busy?: boolean }} props
 */
export function Pager({ page, onFirst, onNext, label, busy }) {
  if (!page) return null;
  return html`<nav aria-label=${`${label} pages`} class="pager">
    <button type="button" onClick=${onFirst} disabled=${busy}>First page</button>
    <button type="button" onClick=${() => onNext(page.next_cursor)} disabled=${busy || !page.has_more}>Next page</button>
  </nav>`;
}

/**
 * Runs requests one at a time for a form or a button: `run(fn)` awaits `fn()`, keeping
 * `busy` while it runs and the rejection in `error` (cleared on the next run). Resolves to
 * fn's value, or undefined when it rejected.
 * @returns {{ busy: boolean, error: any, run: <T>(fn: () => Promise<T>) => Promise<T | undefined>, setError: (e: any) => void }}
 */
export function useRequest() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  async function run(fn) {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, run, setError };
}

/** A timestamp as the user's locale writes it, with the ISO text as a tooltip. */
export const When = ({ at }) => (at ? html`<time datetime=${at} title=${at}>${new Date(at).toLocaleString()}</time>` : '—');
