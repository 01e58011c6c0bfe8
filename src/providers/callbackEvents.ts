/**
 * Replay protection of signed callbacks (the identity verification and screening
 * providers', src/customers/providerCallbacks.ts; the payout rail's,
 * src/payouts/railCallbacks.ts): each event id of a signer is claimed once, in the
 * transaction that applies the event (`provider_callback_events`, primary key
 * (provider, event_id, business_id): an event concerns one business, so the business
 * adds nothing to the key but lets it live with the business's rows). The claim is
 * undone with its transaction, so a callback that fails (e.g. 503) leaves its event id
 * free for the signer's retry.
 */
import type { Knex } from 'knex';
import { AppError } from '../kernel/errors.js';
import type { CallbackSigner } from './signatures.js';

/**
 * Claims `signer`'s event id `eventId` in transaction `trx`, for business `businessId`.
 * Throws 409 CALLBACK_REPLAYED when it was claimed before.
 */
export async function claimCallbackEvent(trx: Knex, signer: CallbackSigner, eventId: string, businessId: string): Promise<void> {
  const claimed = await trx('provider_callback_events')
    .insert({ provider: signer, event_id: eventId, business_id: businessId })
    .onConflict(['provider', 'event_id', 'business_id'])
    .ignore()
    .returning('event_id');
  if (!claimed.length) throw new AppError('CALLBACK_REPLAYED', `Event ${eventId} was already processed.`);
}
