/**
 * The corrections an object page offers (reverse, refund, retry, block, suspend, …) live in
 * ../corrections/; each object page renders the section "Actions" of its kind with
 * `<${Actions} kind=… object=… api=… reload=… />`. A correction registers its component with
 * `registerActions(kind, Component)`: the component receives `{ api, object, reload }`
 * (`object` the object as the page read it, `reload()` reads it again after a change) and
 * renders its buttons and review steps. A kind without a registered correction shows no
 * section.
 */
import { html } from '../preact-htm.js';

/** The registered components per kind (`payouts`, `cards`, …). */
const registered = new Map();

/** Adds `component` to the Actions section of every object page of `kind`. */
export function registerActions(kind, component) {
  registered.set(kind, [...(registered.get(kind) ?? []), component]);
}

/** The Actions section of an object page of `kind`; nothing while no correction is registered for it. */
export function Actions({ kind, api, object, reload }) {
  const components = registered.get(kind) ?? [];
  if (!components.length) return null;
  return html`<section class="card" aria-labelledby="object-actions-title" data-actions=${kind}>
    <h2 id="object-actions-title">Actions</h2>
    ${components.map((C) => html`<${C} api=${api} object=${object} reload=${reload} />`)}
  </section>`;
}
