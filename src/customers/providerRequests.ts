/**
 * Requests made to providers, and the callbacks answering them. The request's
 * id is the `reference` the provider quotes back; it records which session
 * (onboarding or mobile number change) waits for the result. A callback is
 * claimed once per provider event id (src/providers/callbackEvents.ts), in the
 * transaction that applies it: a replay is 409 CALLBACK_REPLAYED, and a callback
 * that fails (e.g. 503) leaves its event id free for the provider's retry.
 *
 * The reference is a UUID in the providers' documented callbacks, so it cannot carry the
 * business: a callback's request is found by reference alone, which distributed by
 * business asks every shard (docs/scale-out.md, "What a cross-business operation costs":
 * a few callbacks per onboarding or number change). Everything after it names the
 * request's business.
 */
import { randomUUID } from 'node:crypto';
import { acrossBusinesses } from '../db/acrossBusinesses.js';
import type { Knex } from 'knex';
import { AppError } from '../kernel/errors.js';
import { claimCallbackEvent } from '../providers/callbackEvents.js';

export type ProviderKind = 'IDENTITY' | 'MOBILE_OWNERSHIP' | 'SCREENING';
export type SubjectType = 'ONBOARDING' | 'MOBILE_NUMBER_CHANGE';

/** A row of `provider_requests`. */
export interface ProviderRequestRow {
  id: string;
  business_id: string;
  provider: 'IDENTITY_VERIFICATION' | 'SCREENING';
  kind: ProviderKind;
  subject_type: SubjectType;
  subject_id: string;
  status: 'PENDING' | 'COMPLETED';
  outcome: string | null;
}

const PROVIDER_OF: Record<ProviderKind, ProviderRequestRow['provider']> = {
  IDENTITY: 'IDENTITY_VERIFICATION',
  MOBILE_OWNERSHIP: 'IDENTITY_VERIFICATION',
  SCREENING: 'SCREENING',
};

/** Records a request of `kind` for a subject; returns its id (the provider's `reference`). */
export async function createProviderRequest(
  trx: Knex,
  args: { businessId: string; kind: ProviderKind; subjectType: SubjectType; subjectId: string },
): Promise<string> {
  const id = randomUUID();
  await trx('provider_requests').insert({
    id,
    business_id: args.businessId,
    provider: PROVIDER_OF[args.kind],
    kind: args.kind,
    subject_type: args.subjectType,
    subject_id: args.subjectId,
    status: 'PENDING',
  });
  return id;
}

/** 404 CALLBACK_REFERENCE_NOT_FOUND: no request of `kind` has `reference`. */
function referenceNotFound(kind: ProviderKind, reference: string): AppError {
  return new AppError('CALLBACK_REFERENCE_NOT_FOUND', `No ${kind.toLowerCase().replace('_', ' ')} request ${reference}.`);
}

/**
 * The business of the request of `kind` whose id is `reference` (a provider's callback
 * quotes nothing else of ours): one unlocked index lookup, across businesses (on Citus, on
 * every shard: docs/scale-out.md names it). Everything after it names that business.
 * Throws 404 CALLBACK_REFERENCE_NOT_FOUND.
 */
export async function requestBusiness(db: Knex, kind: ProviderKind, reference: string): Promise<string> {
  const row = await acrossBusinesses(db, (trx) => trx('provider_requests').where({ id: reference, kind }).first('business_id'));
  if (!row) throw referenceNotFound(kind, reference);
  return row.business_id as string;
}

/**
 * Claims a callback's event id and returns its (locked) request of business
 * `businessId` (requestBusiness), which it marks COMPLETED with `outcome`;
 * `firstResult` is false when the request already had a result. Throws 409
 * CALLBACK_REPLAYED for an event id already processed, 404
 * CALLBACK_REFERENCE_NOT_FOUND when no request of `kind` has the reference.
 */
export async function claimCallback(
  trx: Knex,
  businessId: string,
  kind: ProviderKind,
  event: { event_id: string; reference: string; outcome: string },
): Promise<{ request: ProviderRequestRow; firstResult: boolean }> {
  const request: ProviderRequestRow | undefined = await trx('provider_requests').where({ id: event.reference, business_id: businessId, kind }).forNoKeyUpdate().first();
  if (!request) throw referenceNotFound(kind, event.reference);
  await claimCallbackEvent(trx, request.provider, event.event_id, request.business_id);
  if (request.status === 'COMPLETED') return { request, firstResult: false };
  await trx('provider_requests').where({ id: request.id, business_id: request.business_id }).update({ status: 'COMPLETED', outcome: event.outcome, completed_at: trx.fn.now(3) });
  return { request, firstResult: true };
}
