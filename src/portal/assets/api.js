/**
 * The portal's client of the service's documented operations (the closed-loop API under
 * `/cl/v1` and the core API at the root), on the page's own origin. Paths are passed as the
 * service serves them (`/cl/v1/webhooks/endpoints`, `/events`). Every method resolves to
 * the parsed body (JSON) or the text (other media types), and rejects with an ApiError
 * carrying the problem details (RFC 9457: status, title, detail, code, errors) for any
 * non-2xx answer, or a synthetic problem when the network fails.
 *
 * The portal signs in as a portal user (`createPortalSession`): the session is an HttpOnly
 * cookie the browser keeps and sends (script never sees it), and every request that changes
 * something carries the session's CSRF token as `X-CSRF-Token` (docs/portal-users.md). The
 * token lives in this module's closure only. A reload asks for the session again
 * (`getPortalSession`).
 *
 * The portal is a client pinned to one API version (`PORTAL_API_VERSION`, sent as
 * `X-API-Version` on every request), as every client should be: a business that changes its
 * default version does not change the shapes the portal reads and sends.
 */

/** The API version the portal is written against: the newest, the one recommended to integrations. */
export const PORTAL_API_VERSION = 'v4';

/** A refused request: the problem details the service answered (`application/problem+json`). */
export class ApiError extends Error {
  /** @param {{status:number,title?:string,detail?:string,code?:string,errors?:Array<{field?:string,message?:string}>}} problem */
  constructor(problem) {
    super(problem.detail || problem.title || `HTTP ${problem.status}`);
    this.name = 'ApiError';
    this.problem = problem;
    this.status = problem.status;
    this.title = problem.title ?? `HTTP ${problem.status}`;
    this.detail = problem.detail ?? '';
    this.code = problem.code ?? null;
    this.errors = problem.errors ?? [];
  }
}

/** A fresh Idempotency-Key (a UUID v4) for a money-moving POST. */
export function newIdempotencyKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** `path` with `query`'s defined values as its query string. */
function withQuery(path, query) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Sends one request; resolves to the body, rejects with ApiError. */
async function send(url, init) {
  let res;
  try {
    res = await fetch(url, { ...init, credentials: 'same-origin', cache: 'no-store' });
  } catch (err) {
    throw new ApiError({ status: 0, title: 'The service could not be reached', detail: String(err?.message ?? err) });
  }
  const type = res.headers.get('content-type') ?? '';
  const body = /json/.test(type) ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) {
    const problem = body && typeof body === 'object' ? body : { title: res.statusText, detail: typeof body === 'string' ? body.slice(0, 300) : '' };
    throw new ApiError({ ...problem, status: res.status });
  }
  return body;
}

const JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

/**
 * Signs in (`createPortalSession`) with `email`, `password` and the authenticator's `code`
 * (six digits) or a recovery code. Resolves to the PortalSession (`user`, `business_id`,
 * `csrf_token`, `expires_at`); the browser keeps the session cookie.
 */
export function signIn({ email, password, code }) {
  const second = /^\d{6}$/.test(code.trim()) ? { code: code.trim() } : { recovery_code: code.trim() };
  return send('/portal-sessions', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ email, password, ...second }) });
}

/** Sets the password of invitation `token` (`acceptPortalUserInvitation`); resolves to the TOTP enrolment (secret and otpauth:// URI). */
export function acceptInvitation(token, password) {
  return send('/portal-user-invitations/accept', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ token, password }) });
}

/** Confirms invitation `token`'s authenticator with a first `code` (`confirmPortalUserTotp`); resolves to the user and its recovery codes. */
export function confirmTotp(token, code) {
  return send('/portal-user-invitations/confirm-totp', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ token, code }) });
}

/** The session the browser's cookie names (`getPortalSession`), for a reload; rejects with 401 when there is none. */
export function currentSession() {
  return send('/portal-sessions/current', { method: 'GET', headers: { Accept: 'application/json' } });
}

/** Whether `err` is the service asking for a recent authenticator code (a step marked `x-reauthentication`). */
const needsReauthentication = (err) => err instanceof ApiError && err.status === 403 && /reauthentication/.test(err.detail);

/**
 * The client the pages receive as `api`, on the session whose CSRF token is `csrfToken`.
 * `onUnauthorized` runs on a 401 (the session ended or timed out), before the ApiError is thrown.
 * `askCode()` resolves to a code the user gives (or rejects when the user declines) when a
 * sensitive step asks for a recent one: the session is re-authenticated with it
 * (`reauthenticatePortalSession`) and the step sent once more.
 */
export function createApi(csrfToken, { onUnauthorized, askCode, permissions = [] } = {}) {
  const headers = (extra = {}) => ({ Accept: 'application/json', 'X-API-Version': PORTAL_API_VERSION, ...extra });
  const changing = (extra = {}) => headers({ 'X-CSRF-Token': csrfToken, ...extra });
  const call = async (url, init) => {
    try {
      return await send(url, init);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) onUnauthorized?.(err);
      if (!needsReauthentication(err) || !askCode) throw err;
      const code = (await askCode()).trim();
      const second = /^\d{6}$/.test(code) ? { code } : { recovery_code: code };
      await send('/portal-sessions/current/reauthentication', { method: 'POST', headers: changing({ 'Content-Type': 'application/json' }), body: JSON.stringify(second) });
      return send(url, init);
    }
  };
  const keyHeader = (key) => (key ? { 'Idempotency-Key': key } : {});
  const json = (method, path, body, extra) =>
    call(path, { method, headers: changing({ 'Content-Type': 'application/json', ...extra }), body: JSON.stringify(body ?? {}) });
  return {
    /** Whether the signed-in user holds `permission` (the session's `permissions`): what the portal offers, not what the API allows. */
    can: (permission) => permissions.includes(permission),
    /** GET, `query` as the query string. */
    get: (path, { query } = {}) => call(withQuery(path, query), { method: 'GET', headers: headers() }),
    /** POST a JSON body; `idempotencyKey` is sent as Idempotency-Key. */
    post: (path, body, { idempotencyKey } = {}) => json('POST', path, body, keyHeader(idempotencyKey)),
    /** PATCH a JSON body; `idempotencyKey` is sent as Idempotency-Key (the request log files the attempts under it). */
    patch: (path, body, { idempotencyKey } = {}) => json('PATCH', path, body, keyHeader(idempotencyKey)),
    /** PUT a JSON body; `idempotencyKey` as for patch. */
    put: (path, body, { idempotencyKey } = {}) => json('PUT', path, body, keyHeader(idempotencyKey)),
    /** DELETE; `idempotencyKey` as for patch. */
    del: (path, { idempotencyKey } = {}) => call(path, { method: 'DELETE', headers: changing(keyHeader(idempotencyKey)) }),
    /** GET a text representation (e.g. CSV: `accept: 'text/csv'`); resolves to the text. */
    text: (path, { query, accept = 'text/plain' } = {}) => call(withQuery(path, query), { method: 'GET', headers: headers({ Accept: accept }) }),
  };
}
