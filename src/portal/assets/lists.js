/**
 * Lists and requests, shared by the portal's pages beside ./ui.js: a cursor pager, a hook
 * that runs one request at a time and keeps its problem, a hook for a cursor-paged list with
 * a filter form, the page sizes a list offers, and a timestamp element.
 */
import { html, useEffect, useState } from './preact-htm.js';
import { formatTime } from './ui.js';

/** The page sizes a list offers for its `limit` (shared.yaml LimitParameter: 1 to 100). */
export const PER_PAGE = ['10', '20', '50', '100'];

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

/**
 * A cursor-paged list behind a filter form. `fetchPage(filters, cursor)` resolves to a page of
 * the documents' Page shape (`{ data, has_more, next_cursor }`); the first page with
 * `initial` loads at once. The form's values are `form` (`field(name)` is an input's handler);
 * `apply(event)` submits them (the first page again), `first()` and `next(cursor)` page
 * through the filters last applied (`applied`), `retry()` loads the last page asked for again.
 */
export function useFilteredList(fetchPage, initial) {
  const request = useRequest();
  const [form, setForm] = useState(initial);
  const [applied, setApplied] = useState(initial);
  const [page, setPage] = useState(null);
  const [last, setLast] = useState({ filters: initial, cursor: undefined });
  const load = (filters, cursor) => {
    setLast({ filters, cursor });
    return request.run(async () => setPage(await fetchPage(filters, cursor)));
  };
  useEffect(() => {
    load(initial);
  }, []);
  return {
    form,
    setForm,
    field: (name) => (e) => setForm({ ...form, [name]: e.currentTarget.value }),
    page,
    setPage,
    busy: request.busy,
    error: request.error,
    apply(event) {
      event?.preventDefault();
      setApplied(form);
      load(form);
    },
    first: () => load(applied),
    next: (cursor) => load(applied, cursor),
    retry: () => load(last.filters, last.cursor),
    /** Whether the page shown is past the first. */
    paged: last.cursor !== undefined,
    /** The filters of the list shown (the form's values when last applied): what an export asks for. */
    applied,
  };
}

/** The Pager of a useFilteredList `list` (`label` names the list); none while everything fits one page. */
export const ListPager = ({ list, label }) =>
  list.page && (list.page.has_more || list.paged)
    ? html`<${Pager} page=${list.page} label=${label} busy=${list.busy} onFirst=${list.first} onNext=${list.next} />`
    : null;

/** A timestamp in the user's locale (ui.js formatTime), with the ISO text as its machine value. */
export const When = ({ at }) => (at ? html`<time datetime=${at}>${formatTime(at)}</time>` : '—');
