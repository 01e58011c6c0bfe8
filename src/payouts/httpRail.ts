/**
 * The payout rail of a bank connector over HTTP (openapi/PAYOUT_RAIL.md is the protocol):
 * each PROCESSING payout is POSTed once to PAYOUT_RAIL_URL, signed with the secret shared
 * with the connector (PAYOUT_RAIL_CALLBACK_SECRET) in the provider callbacks' format
 * (`X-Provider-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`), with
 * `Idempotency-Key: <payout id>`. Any 2xx means the connector has the payout and will
 * answer by a signed callback; anything else (another status, a network error, no
 * answer within PROVIDER_TIMEOUT_MS) is a failed attempt, made again after 5 s, then
 * doubling delays up to every 10 minutes, for as long as the payout is PROCESSING. The
 * same payout may therefore arrive more than once, and the connector pays it once (by
 * `payout_id`). Redirects are not followed.
 */
import { deadline } from '../kernel/scheduling/deadline.js';
import type { Logger } from '../log.js';
import { signCallback, SIGNATURE_HEADER } from '../providers/signatures.js';
import { RailSubmissionFailed, type PayoutRail, type RailDecision, type RailPayout, type RailQueue } from './rail.js';

/** The queue of submissions to the HTTP rail. */
export const PAYOUT_RAIL_QUEUE = 'payout-rail';

/** What the connector receives: the payout and when it was sent (this attempt). */
export type RailSubmission = RailPayout & { submitted_at: string };

/** The first retry's delay, and the longest (ms): 5 s, 10 s, 20 s, … then every 10 minutes. */
const FIRST_RETRY_MS = 5_000;
const LONGEST_RETRY_MS = 600_000;

/**
 * The payout rail of a bank connector over HTTP (see the module comment): each payout's
 * submission is a job of its own queue (PAYOUT_RAIL_QUEUE), POSTed signed at once after
 * the payout became PROCESSING; `submit` throws RailSubmissionFailed for a failed attempt,
 * which `retryDelayMs` spaces out.
 */
export class HttpPayoutRail implements PayoutRail {
  readonly queue: RailQueue;
  readonly submitAfterMs = 0;

  constructor(private readonly opts: { url: string; secret: Buffer; timeoutMs: number; log: Logger }) {
    this.queue = {
      name: PAYOUT_RAIL_QUEUE,
      concurrency: 2,
      // pg-boss retries a handler that threw (the database failed while scheduling the next
      // attempt); the rail's own refusals follow `retryDelayMs`.
      retryLimit: 20,
      retryDelaySeconds: 5,
      expireInSeconds: Math.ceil(opts.timeoutMs / 1000) + 30,
    };
  }

  submits(): boolean {
    return true;
  }

  retryDelayMs(attempt: number): number {
    return Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), LONGEST_RETRY_MS);
  }

  async submit(payout: RailPayout, signal: AbortSignal): Promise<RailDecision> {
    const body = JSON.stringify({ ...payout, submitted_at: new Date().toISOString() } satisfies RailSubmission);
    let status: number;
    const limit = deadline(signal, this.opts.timeoutMs);
    try {
      const res = await fetch(this.opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': payout.payout_id, [SIGNATURE_HEADER]: signCallback(this.opts.secret, body) },
        body,
        redirect: 'manual',
        signal: limit.signal,
      });
      await res.arrayBuffer().catch(() => undefined);
      status = res.status;
    } catch (err) {
      return this.failed(payout, limit.timedOut() ? 'no answer in time' : `request failed (${(err as Error).name})`);
    } finally {
      limit.dispose();
    }
    if (status < 200 || status > 299) return this.failed(payout, `answered ${status}`);
    return null;
  }

  private failed(payout: RailPayout, reason: string): never {
    this.opts.log.warn({ payout_id: payout.payout_id, reason }, 'payout rail: submission not taken (retrying)');
    throw new RailSubmissionFailed(`the payout rail ${reason}`);
  }
}
