/**
 * What every object page shares: its heading (the page's `h1`, naming the object, focused
 * when it changes, and the document's title) and the loading of its object.
 */
import { html, useEffect, useRef } from '../preact-htm.js';
import { Problem, useLoad } from '../ui.js';

/** The object page's `h1`: `title` names the object ("Payout 7.81 SAR · CB-7781"). */
export function ObjectHeading({ title }) {
  const heading = useRef(null);
  useEffect(() => {
    document.title = `${title} · Business portal`;
    heading.current?.focus();
  }, [title]);
  return html`<h1 class="object-title" tabindex="-1" ref=${heading}>${title}</h1>`;
}

/**
 * Loads an object with `load()` (again when `deps` change) and renders `children(object,
 * reload)` once it is read; `what` names the kind in the heading while it loads or when the
 * service refused it (its problem, with Retry when a retry can help).
 */
export function ObjectFrame({ what, load, deps, children }) {
  const object = useLoad(load, deps);
  if (object.data) return children(object.data, object.reload);
  if (object.error) return html`<${ObjectHeading} title=${what} /><${Problem} error=${object.error} onRetry=${object.reload} />`;
  return html`<${ObjectHeading} title=${what} /><p role="status">Loading…</p>`;
}
