/**
 * The portal's shell: sign-in with client credentials (`createToken`), the business
 * (`getBusiness`) as the session, navigation between the registered pages
 * (./pages/index.js; the address's fragment names the page, `#webhooks`) and sign-out.
 * The access token is held in memory only (see ./api.js). The sandbox's page carries the
 * demo business's documented credentials (`data-demo-client-id`), which pre-fill the form.
 */
import { html, render, useEffect, useRef, useState } from './preact-htm.js';
import { ApiError, createApi, requestToken } from './api.js';
import { Field, Problem, useSubmit } from './ui.js';
import { pages } from './pages/index.js';

const body = document.body.dataset;
const SANDBOX = body.sandbox === 'true';

/** The sign-in form; `onSignedIn({ api, session })`. */
function SignIn({ onSignedIn, notice }) {
  const [clientId, setClientId] = useState(body.demoClientId ?? '');
  const [clientSecret, setClientSecret] = useState(body.demoClientSecret ?? '');
  const { onSubmit, busy, error } = useSubmit(async () => {
    const token = await requestToken(clientId.trim(), clientSecret);
    if (token.client_kind !== 'BUSINESS' || !token.business_id) {
      throw new ApiError({ status: 403, title: 'Not a business client', detail: 'The portal signs in with a business client’s credentials.' });
    }
    const signOut = { current: null };
    const api = createApi(token.access_token, { onUnauthorized: () => signOut.current?.() });
    const business = await api.get(`/cl/v1/businesses/${token.business_id}`);
    onSignedIn({ api, session: { business, sandbox: SANDBOX }, signOut });
  });
  return html`<main class="sign-in" id="main">
    <h1>Business portal</h1>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
    <form onSubmit=${onSubmit} aria-describedby="sign-in-help">
      <p id="sign-in-help">Sign in with your business client’s credentials.${SANDBOX ? ' The sandbox’s demo business is filled in.' : ''}</p>
      <${Field} id="client-id" label="Client ID" value=${clientId} onInput=${setClientId} required autocomplete="username" />
      <${Field} id="client-secret" label="Client secret" type="password" value=${clientSecret} onInput=${setClientSecret} required autocomplete="current-password" />
      <${Problem} error=${error} />
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
  </main>`;
}

/** The page id the address names (`#webhooks`), or null when it names none. */
function pageIdOfAddress(visible) {
  const id = window.location.hash.replace(/^#\/?/, '');
  return visible.some((p) => p.id === id) ? id : null;
}

/** Moves the focus to the main region without touching the address (its fragment names the page). */
function skipToMain(e) {
  e.preventDefault();
  document.getElementById('main')?.focus();
}

/** The signed-in portal: header, navigation and the current page. */
function Portal({ api, session, onSignOut }) {
  const visible = pages.filter((p) => !p.sandboxOnly || session.sandbox);
  const [pageId, setPageId] = useState(() => pageIdOfAddress(visible) ?? visible[0]?.id);
  // On a narrow screen the navigation folds behind the Menu button (style.css); a choice folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  const heading = useRef(null);
  useEffect(() => {
    // A fragment that names no page (an in-page link) keeps the page shown.
    const onHash = () => {
      setPageId((shown) => pageIdOfAddress(visible) ?? shown);
      setMenuOpen(false);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const page = visible.find((p) => p.id === pageId) ?? visible[0];
  useEffect(() => {
    document.title = `${page.title} · Business portal`;
    heading.current?.focus();
  }, [page.id]);
  const Page = page.component;
  return html`<div class="portal">
    <a class="skip" href="#main" onClick=${skipToMain}>Skip to content</a>
    <header class="top">
      <button type="button" class="secondary menu-button" aria-expanded=${menuOpen} aria-controls="portal-nav"
        onClick=${() => setMenuOpen(!menuOpen)}>Menu</button>
      <span class="brand">Business portal</span>
      <span class="who">${session.business.name}${session.sandbox ? html` <span class="badge">Sandbox</span>` : null}</span>
      <button type="button" class="secondary" onClick=${onSignOut}>Sign out</button>
    </header>
    <nav aria-label="Portal" id="portal-nav" class=${menuOpen ? 'open' : 'closed'}>
      <ul>${visible.map((p) => html`<li><a href=${`#${p.id}`} aria-current=${p.id === page.id ? 'page' : undefined}>${p.title}</a></li>`)}</ul>
    </nav>
    <main id="main" tabindex="-1">
      <h1 tabindex="-1" ref=${heading}>${page.title}</h1>
      <${Page} key=${page.id} api=${api} session=${session} />
    </main>
  </div>`;
}

/** Signed out (the form) or signed in (the portal); the token exists only in this component's state. */
function App() {
  const [signedIn, setSignedIn] = useState(null);
  const [notice, setNotice] = useState(null);
  const signOut = (message = null) => {
    setSignedIn(null);
    setNotice(message);
  };
  if (!signedIn) {
    return html`<${SignIn} notice=${notice} onSignedIn=${(s) => {
      s.signOut.current = () => signOut('Your session ended; sign in again.');
      setNotice(null);
      setSignedIn(s);
    }} />`;
  }
  return html`<${Portal} api=${signedIn.api} session=${signedIn.session} onSignOut=${() => signOut('You are signed out.')} />`;
}

render(html`<${App} />`, document.getElementById('app'));
