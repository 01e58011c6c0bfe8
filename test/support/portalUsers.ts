/**
 * Portal users for the tests: invite one through the API, read its invitation as the sandbox
 * keeps it, accept it, enrol an authenticator (codes made with otpauth, as an app would) and
 * sign in; and a request with a session's cookie and CSRF token.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { Secret as OtpSecret, TOTP as OtpTotp, URI, type TOTP } from 'otpauth';
import { SANDBOX_OWNER } from '../../src/businesses/index.js';
import { get, post, request, type ApiResponse, type RequestOptions } from './client.js';
import { uniq } from './fixtures.js';
import { baseUrl } from './service.js';

export const PASSWORD = 'correct horse battery staple';

/** A portal user enrolled with its authenticator and recovery codes. */
export interface PortalUser {
  id: string;
  email: string;
  totp: TOTP;
  recoveryCodes: string[];
}

/** A signed-in session: the cookie header value and the CSRF token. */
export interface Session {
  cookie: string;
  csrf: string;
  body: any;
}

/** The authenticator's code `steps` time steps (30 s) from now: +1 is a code the service has not seen yet. */
export const codeAt = (totp: TOTP, steps = 1): string => totp.generate({ timestamp: Date.now() + steps * 30_000 });

/** The invitation token the sandbox kept for `email` of the business of `token`. */
export async function invitationToken(token: string, email: string): Promise<string> {
  const list = await get('/testhelpers/user-invitations?limit=100', { token });
  expect(list.status, JSON.stringify(list.body)).to.equal(200);
  const message = list.body.data.find((m: { email: string }) => m.email === email);
  expect(message, `no invitation for ${email}`).to.not.equal(undefined);
  return message.token;
}

/** Invites a user of `role` with the business token or session `as`, accepts, enrols; asserts every step. */
export async function enrolledUser(as: RequestOptions, role: string, readToken: string): Promise<PortalUser> {
  const email = `user-${uniq()}@example.com`;
  const invited = await post('/portal-users', { email, name: `User ${uniq()}`, role }, as);
  expect(invited.status, JSON.stringify(invited.body)).to.equal(201);
  expect(invited.body).to.include({ email, role, status: 'INVITED' });
  const token = await invitationToken(readToken, email);
  const accepted = await post('/portal-user-invitations/accept', { token, password: PASSWORD });
  expect(accepted.status, JSON.stringify(accepted.body)).to.equal(200);
  const totp = URI.parse(accepted.body.totp_uri) as TOTP;
  expect(totp.secret.base32).to.equal(accepted.body.totp_secret);
  const confirmed = await post('/portal-user-invitations/confirm-totp', { token, code: codeAt(totp, 0) });
  expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200);
  expect(confirmed.body.user).to.include({ id: invited.body.id, status: 'ACTIVE' });
  return { id: invited.body.id, email, totp, recoveryCodes: confirmed.body.recovery_codes };
}

/** Signs `user` in with a fresh TOTP code (or `body`'s fields); the raw answer. */
export function signIn(user: { email: string }, body: Record<string, unknown>): Promise<ApiResponse> {
  return post('/portal-sessions', { email: user.email, password: PASSWORD, ...body });
}

/** Signs `user` in with its next TOTP code; asserts 201 and returns the session. */
export async function session(user: PortalUser, body: Record<string, unknown> = { code: codeAt(user.totp) }): Promise<Session> {
  const res = await signIn(user, body);
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const setCookie = res.headers.get('set-cookie') ?? '';
  expect(setCookie).to.match(/; HttpOnly; Secure; SameSite=Strict$/);
  return { cookie: setCookie.split(';')[0], csrf: res.body.csrf_token, body: res.body };
}

/** A request with `s`'s cookie, and its CSRF token unless `csrf` is false. */
export function withSession(s: Session, method: string, path: string, opts: RequestOptions & { csrf?: boolean } = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { cookie: s.cookie, ...(opts.headers ?? {}) };
  if (opts.csrf !== false) headers['x-csrf-token'] = s.csrf;
  return request(method, path, { ...opts, headers });
}

/**
 * POSTs JSON `body` to `path` from the local address `localAddress` (any of 127.0.0.0/8 on
 * Linux), so a test can be several clients' addresses; answers the status. Not contract-checked
 * (a flood's answers are counted, not read).
 */
export function postFrom(localAddress: string, path: string, body: unknown, url = baseUrl()): Promise<number> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** The flood's client, run in a process of its own so that its work is not the service's (which runs in the test process). */
const FLOOD_SCRIPT = `
const http = require('node:http');
const [url, localAddress, total, inFlight, body] = process.argv.slice(1);
const statuses = [];
let sent = 0;
let told = false;
const one = () => new Promise((resolve) => {
  const req = http.request(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode));
  });
  req.on('error', () => resolve(0));
  req.end(body);
});
const lane = async () => {
  while (sent < Number(total)) {
    sent++;
    const status = await one();
    statuses.push(status);
    if (status === 429 && !told) { told = true; process.stdout.write('refused\\n'); }
  }
};
Promise.all(Array.from({ length: Number(inFlight) }, lane)).then(() => process.stdout.write(JSON.stringify(statuses) + '\\n'));
`;

/**
 * POSTs JSON `body` to `path` `total` times from `localAddress`, `inFlight` at a time, from a
 * child process; `refused` resolves at the first 429, `done` with every status.
 */
export function floodFrom(localAddress: string, path: string, body: unknown, total: number, inFlight: number, url = baseUrl()): { refused: Promise<void>; done: Promise<number[]> } {
  const child = spawn(process.execPath, ['-e', FLOOD_SCRIPT, `${url}${path}`, localAddress, String(total), String(inFlight), JSON.stringify(body)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let refusedResolve = (): void => undefined;
  const refused = new Promise<void>((resolve) => (refusedResolve = resolve));
  const done = new Promise<number[]>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('refused\n')) refusedResolve();
    });
    child.on('error', reject);
    child.on('close', () => {
      refusedResolve();
      resolve(JSON.parse(out.split('\n').filter(Boolean).pop() ?? '[]') as number[]);
    });
  });
  return { refused, done };
}

/**
 * Signs the sandbox's demo owner (src/businesses/sandboxDemo.ts SANDBOX_OWNER) in on the
 * service at `baseUrl`: a session of the demo business, for the operations a session calls
 * for itself. Asserts 201.
 */
export async function demoOwnerSession(baseUrl: string): Promise<Session> {
  const totp = new OtpTotp({ secret: OtpSecret.fromBase32(SANDBOX_OWNER.totpSecret) });
  const res = await post('/portal-sessions', { email: SANDBOX_OWNER.email, password: SANDBOX_OWNER.password, code: codeAt(totp) }, { baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return { cookie: (res.headers.get('set-cookie') ?? '').split(';')[0], csrf: res.body.csrf_token, body: res.body };
}

/** The headers that send session `s` (its cookie and CSRF token). */
export const sessionHeaders = (s: Session): Record<string, string> => ({ cookie: s.cookie, 'x-csrf-token': s.csrf });
