/**
 * Sandbox provider outages (test helper `POST /testhelpers/provider-outages`):
 * the next N calls one business makes to one provider fail, so that a tester
 * can see the 503 SERVICE_UNAVAILABLE of every operation that calls it and
 * then send the same request again. Kept in PostgreSQL (`sandbox_provider_outages`);
 * the counter is taken on the pool, outside the caller's transaction, so the
 * failure it causes does not roll it back.
 */
import type { Knex } from 'knex';
import { ProviderFailure, type ProviderName } from './call.js';

/** Sets the outage of `provider` for the business to `failures` calls (replacing any). */
export async function setOutage<P extends ProviderName>(db: Knex, businessId: string, provider: P, failures: number): Promise<{ provider: P; failures_remaining: number }> {
  await db('sandbox_provider_outages')
    .insert({ business_id: businessId, provider, remaining: failures })
    .onConflict(['business_id', 'provider'])
    .merge({ remaining: failures });
  return { provider, failures_remaining: failures };
}

/** Throws ProviderFailure when an outage of `provider` is set for the business, counting one failure. */
export async function failIfOutage(db: Knex, businessId: string, provider: ProviderName): Promise<void> {
  const taken = await db('sandbox_provider_outages')
    .where({ business_id: businessId, provider })
    .andWhere('remaining', '>', 0)
    .decrement('remaining', 1)
    .returning('remaining');
  if (taken.length) throw new ProviderFailure(provider, 'sandbox outage');
}
