/**
 * HTTP client for the tests: real requests to the running service; every
 * response is checked with `assertMatchesContract` before the test sees it.
 */
import { assertMatchesContract } from './contract.js';
import { appendFileSync } from 'node:fs';
import { baseUrl, RESPONSES_FILE } from './service.js';

/** A response as the tests see it, after the contract check. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON for JSON media types, text otherwise. */
  body: T;
}

/** What a request carries besides its method and path. */
export interface RequestOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** JSON-encoded, with `content-type: application/json` unless `headers` name another. */
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Sent as the `idempotency-key` header. */
  idempotencyKey?: string;
  /** Another server than the main one under test (e.g. from startExtraService). */
  baseUrl?: string;
  /**
   * False when the server is not the service (e.g. the Prism mock): the response is checked,
   * but neither counted in the coverage nor recorded for the card data search (a mock's
   * generated strings are random, and a 3-digit one meets one of the run's CVVs now and then).
   */
  coverage?: boolean;
}

/**
 * Sends one request and returns the response once it has been recorded (for the card data
 * search, ./leaks.ts) and checked against the contract (`assertMatchesContract` throws
 * when the response breaks it).
 */
export async function request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${opts.baseUrl ?? baseUrl()}${path}`, { method, headers, body });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  const parsed = /json/.test(type) && text ? JSON.parse(text) : text;
  // Every answer the service gives the suite, searched for card data after the run (test/support/leaks.ts).
  if (opts.coverage !== false) appendFileSync(RESPONSES_FILE, `${JSON.stringify({ method, path: path.split('?')[0], status: res.status, text, sent: body })}\n`);
  assertMatchesContract({ method, path: path.split('?')[0], status: res.status, headers: res.headers, body: parsed, coverage: opts.coverage });
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** GET `path`; the contract-checked response (status not asserted). */
export const get = <T = any>(path: string, opts?: RequestOptions) => request<T>('GET', path, opts);
/** POST `body` as JSON to `path`; the contract-checked response (status not asserted). */
export const post = <T = any>(path: string, body: unknown, opts: RequestOptions = {}) => request<T>('POST', path, { ...opts, body });
