/**
 * One HTTP attempt of a webhook delivery: a POST with a time-out (15 s by default,
 * `WEBHOOK_TIMEOUT_MS`), no redirects followed (a 3xx is a failed attempt), the
 * response body read up to 64 KiB, its first KiB kept as text for the attempt's record
 * (`listWebhookDeliveryAttempts`). The connection goes only to addresses
 * the URL policy allows: IP literals are checked before connecting, and names are
 * resolved by a `lookup` that refuses the whole attempt if any address is not allowed,
 * so the address checked is the address connected to.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { deadline } from '../kernel/scheduling/deadline.js';
import { addressRefusal, hostOf, type UrlPolicy } from './urlPolicy.js';

export interface AttemptResult {
  /** HTTP status, or null when no response came (refused URL, network error, time-out). */
  statusCode: number | null;
  /** The response's Retry-After header, if any. */
  retryAfter: string | null;
  latencyMs: number;
  /** The first RESPONSE_EXCERPT_BYTES of the response body as UTF-8 text (NUL removed); null without a response. */
  responseBody: string | null;
  /** The response's headers as keptHeaders keeps them; null without a response. */
  responseHeaders: Record<string, string> | null;
  /** Why the attempt failed without a response, or a short note on a non-2xx. */
  error: string | null;
  /** True when aborted because the service is shutting down. */
  interrupted: boolean;
}

/** Callbacks of the lookups in flight, by family, hints and name (see sharedLookup). */
const lookupsInFlight = new Map<string, ((err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void)[]>();

/**
 * Every address of `hostname` (dns.lookup with `all`), one system lookup for all the
 * attempts that ask for the same name at once: a lookup holds one of libuv's few threads
 * until the resolver answers (seconds for a name whose servers do not answer), and the
 * attempts to one such endpoint must not take them all from everything else that needs
 * them. Nothing is kept once the lookup answered (each later attempt resolves afresh).
 */
function sharedLookup(hostname: string, options: { family?: number | string; hints?: number }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void): void {
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
  const key = `${family}/${options.hints ?? 0}/${hostname}`;
  const waiting = lookupsInFlight.get(key);
  if (waiting) {
    waiting.push(callback);
    return;
  }
  lookupsInFlight.set(key, [callback]);
  dnsLookup(hostname, { family, hints: options.hints, all: true, verbatim: true }, (err, addresses: LookupAddress[]) => {
    const callbacks = lookupsInFlight.get(key) ?? [];
    lookupsInFlight.delete(key);
    for (const c of callbacks) c(err, addresses);
  });
}

/** A `lookup` that fails unless every address of the name is allowed for `protocol`. */
function guardedLookup(policy: UrlPolicy, protocol: string): LookupFunction {
  return (hostname, options, callback) => {
    sharedLookup(hostname, options as { family?: number; hints?: number }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      for (const a of addresses) {
        const why = addressRefusal(policy, protocol, a.address);
        if (why) return callback(Object.assign(new Error(why), { code: 'EADDRNOTALLOWED' }), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** Bytes of a response body kept with its attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * `bytes` as text: UTF-8 (a character cut at the end, or invalid, becomes U+FFFD), without
 * NUL, which a PostgreSQL `text` cannot hold.
 */
export function excerptText(bytes: Buffer): string {
  return new TextDecoder('utf-8').decode(bytes).replaceAll('\u0000', '');
}

/** Headers kept of a response, and the longest name and value kept. */
const MAX_HEADERS = 32;
const MAX_HEADER_NAME = 64;
const MAX_HEADER_VALUE = 256;

/** Headers whose values are credentials of the receiver's, shown as not kept. */
const UNKEPT_HEADERS = new Set(['set-cookie', 'authorization', 'proxy-authenticate', 'www-authenticate']);

/**
 * A response's headers as an attempt's record keeps them: names lowercased, the first
 * MAX_HEADERS in the order received, each name up to MAX_HEADER_NAME and value up to
 * MAX_HEADER_VALUE characters (control characters removed), repeated ones joined with ", ",
 * and the values of UNKEPT_HEADERS (a receiver's cookies or credentials) replaced by
 * "(not kept)".
 */
function keptHeaders(rawHeaders: string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase().slice(0, MAX_HEADER_NAME);
    if (!(name in kept) && Object.keys(kept).length >= MAX_HEADERS) continue;
    const value = UNKEPT_HEADERS.has(name) ? '(not kept)' : rawHeaders[i + 1]!.replace(/[\u0000-\u001f\u007f]/g, '');
    const joined = name in kept && !UNKEPT_HEADERS.has(name) ? `${kept[name]}, ${value}` : value;
    kept[name] = joined.slice(0, MAX_HEADER_VALUE);
  }
  return kept;
}

/** Reads up to 64 KiB of the response; resolves with its first RESPONSE_EXCERPT_BYTES as text. */
function drain(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let size = 0;
    const kept: Buffer[] = [];
    let keptSize = 0;
    const done = () => resolve(excerptText(Buffer.concat(kept).subarray(0, RESPONSE_EXCERPT_BYTES)));
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (keptSize < RESPONSE_EXCERPT_BYTES) {
        kept.push(chunk);
        keptSize += chunk.length;
      }
      if (size > 65_536) res.destroy();
    });
    res.on('end', done);
    res.on('close', done);
    res.on('error', done);
  });
}

/** POSTs `body` with `headers` to `rawUrl`; never throws. */
export async function sendAttempt(
  policy: UrlPolicy,
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; shutdown: AbortSignal },
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (r: Omit<AttemptResult, 'latencyMs'>): AttemptResult => ({ ...r, latencyMs: Math.round(performance.now() - started) });
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return done({ statusCode: null, retryAfter: null, responseBody: null, responseHeaders: null, error: 'the URL is not valid', interrupted: false });
  }
  const host = hostOf(url);
  const literalRefusal = isIP(host) ? addressRefusal(policy, url.protocol, host) : url.protocol === 'https:' || url.protocol === 'http:' ? null : 'only https URLs are accepted';
  if (literalRefusal) return done({ statusCode: null, retryAfter: null, responseBody: null, responseHeaders: null, error: `URL not allowed: ${literalRefusal}`, interrupted: false });

  const limit = deadline(opts.shutdown, opts.timeoutMs);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const attempt = new Promise<AttemptResult>((resolve) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(policy, url.protocol),
        signal: limit.signal,
      },
      (res) => {
        const statusCode = res.statusCode ?? 0;
        const retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : null;
        const responseHeaders = keptHeaders(res.rawHeaders);
        void drain(res).then((responseBody) =>
          resolve(done({ statusCode, retryAfter, responseBody, responseHeaders, error: statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`, interrupted: false })),
        );
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const interrupted = opts.shutdown.aborted;
      const why = interrupted
        ? 'interrupted: the service shut down during the attempt'
        : limit.timedOut()
          ? `timed out after ${opts.timeoutMs} ms`
          : err.code === 'EADDRNOTALLOWED'
            ? `URL not allowed: ${err.message}`
            : `${err.code ?? 'ERROR'}: ${err.message}`.slice(0, 300);
      resolve(done({ statusCode: null, retryAfter: null, responseBody: null, responseHeaders: null, error: why, interrupted }));
    });
    req.end(body);
  });
  return attempt.finally(() => limit.dispose());
}
