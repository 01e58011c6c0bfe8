/**
 * The header's search box, on every page: `q` sent to the documented `search` operation
 * (core `GET /search`) on Enter, its hits listed below the box grouped by type, each a link
 * to the object's page (./objects/, the address `#/<kind>/<id>`). The `/` key moves the focus to the box
 * unless the person is typing in a field; Escape closes the hits.
 */
import { html, useEffect, useRef, useState } from './preact-htm.js';
import { Problem, words } from './ui.js';
import { objectHref } from './objects/links.js';

/** Each hit type (core.yaml SearchHit.type) in the answer's order: its group's title and the kind of its object page (./objects/index.js). */
const TYPES = [
  ['PAYOUT', 'Payouts', 'payouts'],
  ['BULK_PAYOUT', 'Bulk payouts', 'bulk-payouts'],
  ['CUSTOMER', 'Customers', 'customers'],
  ['WALLET', 'Wallets', 'wallets'],
  ['TRANSACTION', 'Transactions', 'transactions'],
  ['CARD', 'Cards', 'cards'],
  ['EVENT', 'Events', 'events'],
];

/** True when `el` takes typed text (then `/` is a character, not the shortcut). */
function typingIn(el) {
  return el instanceof HTMLElement && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

/** The search box and its hits; `api` is the portal's client (../api.js). */
export function SearchBox({ api }) {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const input = useRef(null);
  useEffect(() => {
    const onKey = (e) => {
      if (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !typingIn(e.target)) {
        e.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    // Opening a hit (or any page) closes the hits.
    const onHash = () => setHits(null);
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  async function find(e) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setHits((await api.get('/search', { query: { q: q.trim() } })).data);
    } catch (err) {
      setHits(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const close = (e) => e.key === 'Escape' && (setHits(null), setError(null), input.current?.focus());
  return html`<div class="search" onKeyDown=${close}>
    <form role="search" onSubmit=${find}>
      <label for="portal-search" class="visually-hidden">Search payouts, customers, wallets, transactions, cards and events</label>
      <input id="portal-search" ref=${input} type="search" value=${q} onInput=${(e) => setQ(e.currentTarget.value)}
        placeholder="Search (press /)" minlength="3" maxlength="100" required autocomplete="off" aria-describedby="portal-search-hint" />
      <span id="portal-search-hint" class="visually-hidden">An id, a reference, an account number, a mobile number, a name or a card’s last four digits; Enter searches.</span>
      <button type="submit" disabled=${busy}>Search</button>
    </form>
    ${error ? html`<div class="search-hits"><${Problem} error=${error} /></div>` : null}
    ${hits ? html`<${Hits} hits=${hits} q=${q.trim()} />` : null}
  </div>`;
}

/** The hits of a search grouped by type, each a link to its page. */
function Hits({ hits, q }) {
  const groups = TYPES.map(([type, title, kind]) => ({ type, title, kind, hits: hits.filter((h) => h.type === type) })).filter((g) => g.hits.length);
  return html`<section class="search-hits" aria-label=${`Search results for ${q}`}>
    <p role="status">${hits.length ? `${hits.length} found for “${q}”.` : `Nothing found for “${q}”.`}</p>
    ${groups.map((g) => html`<h2 class="search-group" id=${`search-${g.type}`}>${g.title}</h2>
      <ul aria-labelledby=${`search-${g.type}`}>
        ${g.hits.map((h) => html`<li><a href=${objectHref(g.kind, h.id)}>${h.label}</a> <small class="muted">${words(h.match)} match of ${h.matched_field.replaceAll('_', ' ')}</small></li>`)}
      </ul>`)}
  </section>`;
}
