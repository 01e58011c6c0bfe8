/**
 * View pieces the Wallets, Events, Payouts and Sandbox pages share besides ../ui.js: a
 * cursor pager, a hook that runs one request at a time and keeps its problem, and a
 * timestamp element.
 */
import { html, useState } from '../preact-htm.js';
import { formatTime } from '../ui.js';

/**
 * Buttons for a cursor-paged list (`{data, has_more, next_cursor}`): back to the first page,
 * and on to the next while `has_more`.
 * @param {{ page: any, onFirst: () => void, onNext: (cursor: string) => void, label: string, busy?: boolean }} props
 */
export function Pager({ page, onFirst, onNext, label, busy }) {
  if (!page) return null;
  return html`<nav aria-label=${`${label} pages`} class="pager">
    <button type="button" class="secondary" onClick=${onFirst} disabled=${busy}>First page</button>
    <button type="button" class="secondary" onClick=${() => onNext(page.next_cursor)} disabled=${busy || !page.has_more}>Next page</button>
  </nav>`;
}

/**
 * Runs requests one at a time for a form or a button: `run(fn)` awaits `fn()`, keeping
 * `busy` while it runs and the rejection (an ApiError) in `error`, cleared on the next run.
 * Resolves to fn's value, or undefined when it rejected.
 * @returns {{ busy: boolean, error: any, run: (fn: () => Promise<any>) => Promise<any>, setError: (e: any) => void }}
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

/** A timestamp in the user's locale (ui.js formatTime), with the ISO text as its machine value. */
export const When = ({ at }) => (at ? html`<time datetime=${at}>${formatTime(at)}</time>` : '—');
