/**
 * Addresses of the portal's object pages and links to them. An object page's address is
 * `#/<kind>/<id>` (`#/payouts/7c1e…`, `#/transactions/TXN000000000042`); a link is a plain
 * anchor, so that following it adds an entry to the browser's history and Back returns.
 */
import { html } from '../preact-htm.js';
import { CopyButton } from '../ui.js';

/** The address of object `id` of `kind` (a kind of ./index.js: `payouts`, `wallets`, …), with `more` after it (a part of the page). */
export const objectHref = (kind, id, ...more) => `#/${[kind, id, ...more].map(encodeURIComponent).join('/')}`;

/** A link to object `id` of `kind` reading `children` (the id in code type when none); `—` when `id` is null. */
export function ObjectLink({ kind, id, children, label }) {
  if (!id) return '—';
  return html`<a href=${objectHref(kind, id)} aria-label=${label}>${children ?? html`<code>${id}</code>`}</a>`;
}

/** An id that links to its object's page, with a button that copies it; `label` names it ("customer id"). */
export function LinkedId({ kind, id, label = 'id' }) {
  if (!id) return '—';
  return html`<span class="id"><a href=${objectHref(kind, id)}><code>${id}</code></a> <${CopyButton} text=${id} label=${`Copy ${label} ${id}`} /></span>`;
}
