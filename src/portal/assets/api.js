/**
 * The portal's client of the service's documented operations (the closed-loop API under
 * `/cl/v1` and the core API at the root), on the page's own origin. Paths are passed as the
 * service serves them (`/cl/v1/webhooks/endpoints`, `/events`). Every method resolves to
 * the parsed body (JSON) or the text (other media types), and rejects with an ApiError
 * carrying the problem details (RFC 9457: status, title, detail, code, errors) for any
 * non-2xx answer, or a synthetic problem when the network fails.
 *
 * The access token lives in this module's closure only: never in localStorage, sessionStorage
 * or a cookie, so it ends with the page (and with sign-out).
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
    res = await fetch(url, { ...init, credentials: 'omit', cache: 'no-store' });
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

/**
 * Exchanges client credentials for an access token (`createToken`). Resolves to the
 * token response (`access_token`, `expires_in`, `client_kind`, `business_id`).
 */
export function requestToken(clientId, clientSecret) {
  return send('/cl/v1/auth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
}

/**
 * The client the pages receive as `api`, bound to `token`. `onUnauthorized` runs on a 401
 * (the token expired or was refused), before the ApiError is thrown.
 */
export function createApi(token, { onUnauthorized } = {}) {
  const headers = (extra = {}) => ({ Authorization: `Bearer ${token}`, Accept: 'application/json', 'X-API-Version': PORTAL_API_VERSION, ...extra });
  const call = async (url, init) => {
    try {
      return await send(url, init);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) onUnauthorized?.(err);
      throw err;
    }
  };
  const json = (method, path, body, extra) =>
    call(path, { method, headers: headers({ 'Content-Type': 'application/json', ...extra }), body: JSON.stringify(body ?? {}) });
  return {
    /** GET, `query` as the query string. */
    get: (path, { query } = {}) => call(withQuery(path, query), { method: 'GET', headers: headers() }),
    /** POST a JSON body; `idempotencyKey` is sent as Idempotency-Key. */
    post: (path, body, { idempotencyKey } = {}) => json('POST', path, body, idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
    /** PATCH a JSON body. */
    patch: (path, body) => json('PATCH', path, body),
    /** DELETE. */
    del: (path) => call(path, { method: 'DELETE', headers: headers() }),
    /** GET a text representation (e.g. CSV: `accept: 'text/csv'`); resolves to the text. */
    text: (path, { query, accept = 'text/plain' } = {}) => call(withQuery(path, query), { method: 'GET', headers: headers({ Accept: accept }) }),
  };
}
