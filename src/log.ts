/**
 * Structured JSON logs through pino: one line per request (`msg: "request"` with
 * `req_id`, `method`, `path`, `operation_id`, `status`, `ms`, `client_id`), one line per
 * unexpected error (with its stack), one line per database outage.
 *
 * Request and response bodies and headers are never logged. As a second line of
 * defence, pino's redaction replaces any field that could carry a credential or card
 * data (authorization, tokens, client secrets, OTPs, PAN, CVV, PIN, national ids) with
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

const SENSITIVE = [
  'authorization',
  'access_token',
  'token',
  'client_secret',
  'secret',
  'otp',
  'pan',
  'cvv',
  'pin',
  'national_id',
];

/** Redaction paths: each sensitive name at the top level and one or two levels down. */
export const REDACT_PATHS = SENSITIVE.flatMap((name) => [name, `*.${name}`, `*.*.${name}`]);

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
  const log = pino({ ...options, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
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
