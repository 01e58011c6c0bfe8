/**
 * Calls to external providers (SMS, identity verification, screening). A call
 * that fails or takes longer than PROVIDER_TIMEOUT_MS becomes 503
 * SERVICE_UNAVAILABLE (seed, "Errors"; `Retry-After` from the code table); the
 * caller runs it inside its database transaction, so nothing is half-written
 * and the same request can simply be sent again. The log line names the
 * provider and the kind of failure only: never a request's identity data.
 */
import { AppError } from '../kernel/errors.js';

/** The providers behind the customer flows. */
export type ProviderName = 'SMS' | 'IDENTITY_VERIFICATION' | 'SCREENING';

const LABELS: Record<ProviderName, string> = {
  SMS: 'SMS',
  IDENTITY_VERIFICATION: 'identity verification',
  SCREENING: 'screening',
};

/** A provider's own failure (outage, refusal to serve, time-out), as an adapter reports it. */
export class ProviderFailure extends Error {
  constructor(readonly provider: ProviderName, reason: string) {
    super(reason);
    this.name = 'ProviderFailure';
  }
}

/**
 * Runs `call` against `provider` with a time limit of `timeoutMs`. Throws
 * AppError SERVICE_UNAVAILABLE when it fails or times out.
 */
export async function callProvider<T>(provider: ProviderName, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderFailure(provider, `no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([call(), timeout]);
  } catch (err) {
    const reason = err instanceof ProviderFailure ? err.message : `unexpected ${(err as Error)?.name ?? 'error'}`;
    console.warn(`provider ${provider} unavailable: ${reason}`);
    throw new AppError('SERVICE_UNAVAILABLE', `The ${LABELS[provider]} provider is unavailable; nothing was changed. Retry later.`);
  } finally {
    clearTimeout(timer);
  }
}
