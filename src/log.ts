/**
 * Structured JSON logs through pino: one line per request (`msg: "request"` with
 * `req_id`, `method`, `path`, `operation_id`, `status`, `ms`, `client_id`), one line per
 * unexpected error (with its stack), one line per database outage.
 *
 * Request and response bodies and headers are never logged. As a second line of
 * defence, pino's redaction replaces any field that could carry a credential or card
 * data (the SENSITIVE names: credentials, tokens, secrets, passwords, one-time and TOTP
 * codes, PAN, CVV, PIN, expiry, national ids) with
 * `[redacted]` wherever such a field is passed to the logger.
 *
 * LOG_LEVEL (default `info`; `silent` turns logs off) and LOG_FILE (append to a file
 * instead of stdout; the tests use it to search every line the suite produced).
 *
 * Standard output is written asynchronously (pino's `sync: false`) and in blocks:
 * lines are queued until STDOUT_BLOCK bytes are waiting or STDOUT_FLUSH_MS has
 * passed, then go out in one write, and what is queued is flushed when the process
 * exits. A synchronous write would stall every request whenever the reader of the
 * output (a pipe to a log collector) falls behind: pino's writer then sleeps 100 ms
 * per retry. One write per line costs the event loop a hand-off to libuv's thread
 * pool per request under load; a block of lines costs that once. A log file stays synchronous, so that a test reads
 * every line as soon as it is logged.
 */
import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * The one rule of what is never written out, in the service's logs and in the API request
 * log (src/audit/requestLog.ts): the values of properties with these names, at any depth.
 * Each carries a credential, card data (PCI DSS: the PAN, its CVV, PIN and expiry), a one-time
 * or TOTP code, or a national id. test/platform/running/redaction.test.ts walks every property
 * name of the API documents and fails on a sensitive-looking one this list does not name.
 */
export const SENSITIVE = [
  'authorization',
  'cookie',
  'access_token',
  'token',
  'link', // a sandbox invitation's portal link, which carries its token
  'csrf_token',
  'client_secret',
  'secret',
  'totp_secret',
  'totp_uri',
  'password',
  'credentials',
  'otp',
  'code',
  'recovery_code',
  'recovery_codes',
  'pan',
  'cvv',
  'pin',
  'expiry',
  'expiry_date',
  'national_id',
] as const;

/** What replaces a redacted value. */
export const REDACTED = '[redacted]';

/** Redaction paths for pino: each sensitive name at the top level and one or two levels down. */
export const REDACT_PATHS = SENSITIVE.flatMap((name) => [name, `*.${name}`, `*.*.${name}`]);

const SENSITIVE_NAMES: ReadonlySet<string> = new Set(SENSITIVE);

/** True when a property named `name` (any case) is redacted by the rule (SENSITIVE). */
export function isSensitiveName(name: string): boolean {
  return SENSITIVE_NAMES.has(name.toLowerCase());
}

/**
 * A `code` that names a kind, not a secret: a problem's (`VALIDATION_ERROR`), an event's
 * (`topup.complete`), an errno name (`ECONNREFUSED`). Letters, underscores and dots only,
 * starting with a letter: a one-time or TOTP code is digits, so it never looks like this.
 */
const KIND_CODE = /^[A-Za-z][A-Za-z_]*(\.[A-Za-z_]+)*$/;

/** What the rule writes for the value `value` of property `name`: REDACTED, or the value itself (a `code` that names a kind, or null). */
function censored(name: string, value: unknown): unknown {
  if (value === null) return null;
  return name.toLowerCase() === 'code' && typeof value === 'string' && KIND_CODE.test(value) ? value : REDACTED;
}

/**
 * A copy of the JSON value `value` (an object with `toJSON`, such as a Date, as it serializes)
 * with the value of every property that SENSITIVE names, at any depth, replaced by REDACTED
 * (`null` values are kept: they reveal nothing; so is a `code` that names a kind, KIND_CODE).
 */
export function redacted(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return redacted((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) return value.map(redacted);
  const copy: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) copy[name] = isSensitiveName(name) ? censored(name, v) : redacted(v);
  return copy;
}

/**
 * An error as pino writes it, with its `code` (a SQLSTATE, an errno name: never a secret) also
 * as `error_code`, which stays readable where the rule redacts a `code` of digits (a SQLSTATE
 * such as `40P01` looks like a TOTP code's value to it).
 */
function errorLine(err: unknown): unknown {
  const line = pino.stdSerializers.err(err as Error);
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' || typeof code === 'number' ? { ...line, error_code: code } : line;
}

/** Bytes of stdout lines queued before they are written (sonic-boom's `minLength`). */
const STDOUT_BLOCK = 8192;
/** Most time a queued stdout line waits for its block (sonic-boom's `periodicFlush`). */
const STDOUT_FLUSH_MS = 250;

/** The request-line logger of each logger made by createLogger. */
const requestLoggers = new WeakMap<Logger, Logger>();

/** The service's logger for `level` and an optional `file` (stdout otherwise). */
export function createLogger(opts: { level?: string; file?: string } = {}): Logger {
  const destination = opts.file ? pino.destination({ dest: opts.file, append: true, sync: true }) : pino.destination({ dest: 1, sync: false, minLength: STDOUT_BLOCK, periodicFlush: STDOUT_FLUSH_MS });
  const options = { level: opts.level ?? 'info', base: { service: 'wallet-service' }, timestamp: pino.stdTimeFunctions.isoTime };
  const log = pino({ ...options, serializers: { err: errorLine }, redact: { paths: REDACT_PATHS, censor: (value: unknown, path: string[]) => censored(path[path.length - 1] ?? '', value) } }, destination);
  requestLoggers.set(log, pino(options, destination));
  return log;
}

/**
 * The logger of `log`'s one line per request: the same destination, level and base
 * fields, without redaction. That line has fixed fields (req_id, method, path,
 * operation_id, status, ms, client_id), none of them a redacted name, so redaction
 * could never change it; skipping it saves its cost on every request.
 */
export function requestLogger(log: Logger): Logger {
  return requestLoggers.get(log) ?? log;
}
