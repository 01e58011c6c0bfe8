/**
 * The portal's shell: sign-in as a portal user (email, password and a code of the user's
 * authenticator: `createPortalSession`), the session kept across a reload (an HttpOnly
 * cookie; `getPortalSession` asks for it again), navigation between the registered pages
 * (./pages/index.js; the address's fragment names the page, `#webhooks`) and to the object
 * pages (./objects/index.js; `#/payouts/<id>`: each link a history entry, so Back returns), sign-out and
 * sign-out everywhere. The sandbox's page carries the demo owner's documented email and
 * password (`data-demo-email`), which pre-fill the form, and offers its current code.
 */
import { html, render, useEffect, useRef, useState } from './preact-htm.js';
import { createApi, currentSession, signIn } from './api.js';
import { Field, Problem, setTimeZone, useSubmit, words } from './ui.js';
import { pages } from './pages/index.js';
import { Invitation, invitationToken } from './invitation.js';
import { SearchBox } from './search.js';
import { KINDS, ObjectPage, objectOfAddress } from './objects/index.js';

const body = document.body.dataset;
const SANDBOX = body.sandbox === 'true';
/** A flag (not a credential) that this tab signed in, so that a reload asks for the session: without it, a 401 would be logged on every first visit. */
const SIGNED_IN_FLAG = 'portal-signed-in';

/** The signed-in state of `session` (a PortalSession): the pages' `api`, the business and the user. */
async function enter(session, onEnded, askCode) {
  const api = createApi(session.csrf_token, { onUnauthorized: () => onEnded('Your session ended; sign in again.'), askCode, permissions: session.permissions });
  const business = await api.get(`/cl/v1/businesses/${session.business_id}`);
  setTimeZone(business.time_zone);
  sessionStorage.setItem(SIGNED_IN_FLAG, '1');
  return { api, session: { business, user: session.user, permissions: session.permissions, sandbox: SANDBOX } };
}

/** The sandbox's demo owner's current code, from its documented secret (otpauth, served in the sandbox only). */
async function demoCode() {
  const { TOTP } = await import('./otpauth.js');
  return new TOTP({ secret: body.demoTotpSecret }).generate();
}

/**
 * Asks for a code when a sensitive step needs a recent one: `ask.resolve(code)` or
 * `ask.reject()` (declined: the step's page shows the service's 403).
 */
function CodeDialog({ ask }) {
  const [code, setCode] = useState('');
  const confirm = (e) => {
    e.preventDefault();
    ask.resolve(code);
  };
  return html`<div class="dialog-backdrop">
    <form class="dialog" role="dialog" aria-modal="true" aria-labelledby="code-dialog-title" onSubmit=${confirm}>
      <h2 id="code-dialog-title">Confirm it’s you</h2>
      <p>This step needs a recent code from your authenticator app (or a recovery code).</p>
      <${Field} id="reauth-code" label="Authentication code" value=${code} onInput=${setCode} required autocomplete="one-time-code" />
      <div class="actions">
        <button type="submit">Confirm</button>
        <button type="button" class="secondary" onClick=${() => ask.reject()}>Cancel</button>
      </div>
    </form>
  </div>`;
}

/** The sign-in form; `onSignedIn(session)` with the PortalSession. */
function SignIn({ onSignedIn, notice }) {
  const [email, setEmail] = useState(body.demoEmail ?? '');
  const [password, setPassword] = useState(body.demoPassword ?? '');
  const [code, setCode] = useState('');
  const { onSubmit, busy, error } = useSubmit(async () => onSignedIn(await signIn({ email: email.trim(), password, code })));
  return html`<main class="sign-in" id="main">
    <h1>Business portal</h1>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
    <form onSubmit=${onSubmit} aria-describedby="sign-in-help">
      <p id="sign-in-help">Sign in with your email, your password and the code your authenticator app shows.${SANDBOX ? ' The sandbox’s demo owner is filled in.' : ''}</p>
      <${Field} id="email" label="Email" type="email" value=${email} onInput=${setEmail} required autocomplete="username" />
      <${Field} id="password" label="Password" type="password" value=${password} onInput=${setPassword} required autocomplete="current-password" />
      <${Field} id="code" label="Authentication code" value=${code} onInput=${setCode} required autocomplete="one-time-code"
        hint="Six digits, or one of your recovery codes." />
      ${SANDBOX && body.demoTotpSecret ? html`<p><button type="button" class="secondary" onClick=${async () => setCode(await demoCode())}>Fill in the demo owner’s code</button></p>` : null}
      <${Problem} error=${error} />
      <button type="submit" disabled=${busy}>Sign in</button>
    </form>
  </main>`;
}

/** The page id the address names (`#webhooks`, `#payouts/<id>`), or null when it names none. */
function pageIdOfAddress(visible) {
  const id = window.location.hash.replace(/^#\/?/, '').split('/')[0];
  return visible.some((p) => p.id === id) ? id : null;
}

/** What the address names inside its page (`#payouts/<id>`: the payout to open), or null. */
function targetOfAddress() {
  const [, ...rest] = window.location.hash.replace(/^#\/?/, '').split('/');
  return rest.length ? decodeURIComponent(rest.join('/')) : null;
}

/** Moves the focus to the main region without touching the address (its fragment names the page). */
function skipToMain(e) {
  e.preventDefault();
  document.getElementById('main')?.focus();
}

/** The signed-in portal: header, navigation and the current page. */
function Portal({ api, session, onSignOut }) {
  const visible = pages.filter((p) => (!p.sandboxOnly || session.sandbox) && (!p.permission || session.permissions.includes(p.permission)));
  const [pageId, setPageId] = useState(() => pageIdOfAddress(visible) ?? visible[0]?.id);
  const [target, setTarget] = useState(targetOfAddress);
  const [object, setObject] = useState(objectOfAddress);
  // On a narrow screen the navigation folds behind the Menu button (style.css); a choice folds it again.
  const [menuOpen, setMenuOpen] = useState(false);
  const heading = useRef(null);
  useEffect(() => {
    // A fragment that names no page (an in-page link) keeps the page shown.
    const onHash = () => {
      const named = objectOfAddress();
      setObject(named);
      if (named) window.scrollTo(0, 0);
      setPageId((shown) => (named ? KINDS[named.kind].list : pageIdOfAddress(visible) ?? shown));
      if (!named && pageIdOfAddress(visible)) setTarget(targetOfAddress());
      setMenuOpen(false);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const page = visible.find((p) => p.id === (object ? KINDS[object.kind].list : pageId)) ?? visible[0];
  useEffect(() => {
    // An object page names itself once its object is read (./objects/frame.js).
    if (object) return;
    document.title = `${page.title} · Business portal`;
    heading.current?.focus();
  }, [page.id, target, object]);
  const Page = page.component;
  return html`<div class="portal">
    <a class="skip" href="#main" onClick=${skipToMain}>Skip to content</a>
    ${session.sandbox
      ? html`<p class="sandbox-banner" role="note"><strong>Sandbox</strong>: test data only; no real money moves and no real card is issued.</p>`
      : null}
    <header class="top">
      <button type="button" class="secondary menu-button" aria-expanded=${menuOpen} aria-controls="portal-nav"
        onClick=${() => setMenuOpen(!menuOpen)}>Menu</button>
      <span class="brand">Business portal</span>
      <${SearchBox} api=${api} />
      <span class="who">${session.user.name} (${words(session.user.role)}), ${session.business.name}</span>
      <button type="button" class="secondary" onClick=${() => onSignOut(false)}>Sign out</button>
      <button type="button" class="secondary" onClick=${() => onSignOut(true)}>Sign out everywhere</button>
    </header>
    <nav aria-label="Portal" id="portal-nav" class=${menuOpen ? 'open' : 'closed'}>
      <ul>${visible.map((p) => html`<li><a href=${`#${p.id}`} aria-current=${p.id === page.id ? 'page' : undefined}>${p.title}</a></li>`)}</ul>
    </nav>
    <main id="main" tabindex="-1">
      ${object
        ? html`<${ObjectPage} key=${[object.kind, object.id, ...object.more].join("/")} api=${api} object=${object} />`
        : html`<h1 tabindex="-1" ref=${heading}>${page.title}</h1>
          <${Page} key=${`${page.id}/${target ?? ''}`} api=${api} session=${session} target=${target} />`}
    </main>
  </div>`;
}

/**
 * Signed out (the form) or signed in (the portal). A reload of a tab that signed in asks for
 * its session again; signing out ends this session (`endPortalSession`) or every session of
 * the user (`endPortalSessions`).
 */
function App() {
  const [signedIn, setSignedIn] = useState(null);
  const [notice, setNotice] = useState(null);
  const [resuming, setResuming] = useState(sessionStorage.getItem(SIGNED_IN_FLAG) === '1');
  const [ask, setAsk] = useState(null);
  // A sensitive step's request waits on this promise while the dialog asks for a code.
  const askCode = () =>
    new Promise((resolve, reject) =>
      setAsk({
        resolve: (code) => (setAsk(null), resolve(code)),
        reject: () => (setAsk(null), reject(new Error('declined'))),
      }),
    );
  const ended = (message) => {
    sessionStorage.removeItem(SIGNED_IN_FLAG);
    setSignedIn(null);
    setNotice(message);
  };
  const start = async (session) => {
    setNotice(null);
    setSignedIn(await enter(session, ended, askCode));
  };
  useEffect(() => {
    if (!resuming) return;
    currentSession()
      .then(start)
      .catch(() => ended('Your session ended; sign in again.'))
      .finally(() => setResuming(false));
  }, []);
  const invitation = invitationToken();
  if (invitation && !signedIn) {
    return html`<${Invitation} token=${invitation} onDone=${() => {
      history.replaceState(null, '', window.location.pathname);
      setNotice('You are enrolled: sign in with your email, your password and a code.');
      setResuming(false);
    }} />`;
  }
  if (resuming) return html`<main class="sign-in" id="main"><p role="status">Loading your session…</p></main>`;
  if (!signedIn) return html`<${SignIn} notice=${notice} onSignedIn=${start} />`;
  const signOut = async (everywhere) => {
    await signedIn.api.del(everywhere ? '/portal-sessions' : '/portal-sessions/current').catch(() => undefined);
    ended(everywhere ? 'You are signed out on every device.' : 'You are signed out.');
  };
  return html`<${Portal} api=${signedIn.api} session=${signedIn.session} onSignOut=${signOut} />${ask ? html`<${CodeDialog} ask=${ask} />` : null}`;
}

render(html`<${App} />`, document.getElementById('app'));
