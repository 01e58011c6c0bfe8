/**
 * The card transaction simulator (sandbox test helpers): what a card
 * network would ask the issuer. An authorization of an amount on a card either
 * debits the card's wallet through the ledger (one balanced CARD_PURCHASE
 * transaction, wallet → settlement account: src/ledger/sql/ledger_move.sql) or is
 * declined with a reason; a balance inquiry answers the wallet's available
 * balance. A decline is an answer (200, `APPROVED`/`DECLINED` with
 * `decline_reason`), not an error: only an unknown card is (404 CARD_NOT_FOUND).
 *
 * Checked in order: the card is ACTIVE (CARD_NOT_ACTIVE), not past its expiry
 * date on the business's clock (CARD_EXPIRED), the PIN when one is sent
 * (INCORRECT_PIN: not the card's, or the card has none; PIN_TRIES_EXCEEDED: see
 * below), then the ledger's refusals (INSUFFICIENT_FUNDS; WALLET_NOT_ACTIVE as
 * ACCOUNT_NOT_ACTIVE).
 *
 * PIN tries, as an issuer's PIN try counter (ISO 8583 response code 75, "allowable
 * number of PIN tries exceeded"): each wrong PIN counts (`cards.pin_failed_tries`), a
 * right one resets the count, and the third wrong PIN in a row blocks the PIN: it is
 * declined PIN_TRIES_EXCEEDED, and so is every later transaction that sends a PIN,
 * the right one included, until a new PIN is set through the set-PIN step and its
 * code (./steps.ts resets the count). A transaction without a PIN (an online
 * purchase) does not check the PIN and is not affected. The count is moved by one
 * conditional UPDATE each, so concurrent tries never count past the limit and a
 * right PIN passes only while the PIN is not blocked.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { openCardValue, type CardKeyring } from './data.js';
import { cardRow, type CardRow } from './cards.js';
import { businessNow } from '../kernel/clock.js';
import { move } from '../ledger/ledger.js';
import { formatMoney } from '../kernel/money.js';

type Schemas = components['schemas'];
type DeclineReason = NonNullable<Schemas['CardAuthorization']['decline_reason']>;

/** What the simulator works with: the business's database handle and the card data keys. */
export interface SimulatorEnv {
  db: Knex;
  businessId: string;
  cardKeys: CardKeyring;
}

/** Wrong PINs in a row that block the card's PIN (the `cards_pin_failed_tries_range` CHECK repeats it). */
export const PIN_TRIES = 3;

/** The reason to decline `card` at `now` with `pin` (if sent), or null; counts the PIN try. */
async function declineReason(env: SimulatorEnv, card: CardRow, now: Date, pin: string | undefined): Promise<DeclineReason | null> {
  if (card.status !== 'ACTIVE') return 'CARD_NOT_ACTIVE';
  if (card.expiry_date < now.toISOString().slice(0, 10)) return 'CARD_EXPIRED';
  return pin === undefined ? null : pinTry(env, card, pin);
}

/** Checks `pin` against the card's and counts the try (see the module comment). */
async function pinTry(env: SimulatorEnv, card: CardRow, pin: string): Promise<DeclineReason | null> {
  if (card.pin_failed_tries >= PIN_TRIES) return 'PIN_TRIES_EXCEEDED';
  const unblocked = () => env.db('cards').where({ id: card.id, business_id: env.businessId }).where('pin_failed_tries', '<', PIN_TRIES);
  if (card.pin_sealed !== null) {
    const actual = Buffer.from(openCardValue(env.cardKeys, card.id, 'pin', { sealed: card.pin_sealed, keyVersion: card.pin_key_version! }));
    const sent = Buffer.from(pin);
    if (actual.length === sent.length && timingSafeEqual(actual, sent)) {
      const reset = await unblocked().update({ pin_failed_tries: 0 });
      return reset ? null : 'PIN_TRIES_EXCEEDED';
    }
  }
  const [counted] = await unblocked().increment('pin_failed_tries', 1).returning('pin_failed_tries');
  return counted && counted.pin_failed_tries < PIN_TRIES ? 'INCORRECT_PIN' : 'PIN_TRIES_EXCEEDED';
}

const LEDGER_DECLINES: Record<string, DeclineReason> = { INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS', WALLET_NOT_ACTIVE: 'ACCOUNT_NOT_ACTIVE' };

/**
 * Simulates an authorization of `req.amount` on card `req.card_id`: APPROVED
 * with the CARD_PURCHASE transaction that debited the wallet, or DECLINED with
 * its reason (nothing moved). 404 CARD_NOT_FOUND.
 */
export async function simulateCardAuthorization(env: SimulatorEnv, req: Schemas['CardAuthorizationRequest']): Promise<Schemas['CardAuthorization']> {
  const card = await cardRow(env.db, env.businessId, req.card_id);
  const wallet = await env.db('accounts').where({ id: card.account_id, business_id: env.businessId }).first('currency');
  const answer = (transaction: { id: string; reference: string } | null, reason: DeclineReason | null): Schemas['CardAuthorization'] => ({
    card_id: card.id,
    status: reason ? 'DECLINED' : 'APPROVED',
    decline_reason: reason,
    amount: formatMoney(req.amount),
    currency: wallet.currency,
    transaction_id: transaction?.id ?? null,
    transaction_reference: transaction?.reference ?? null,
  });
  const reason = await declineReason(env, card, await businessNow(env.db, env.businessId), req.pin);
  if (reason) return answer(null, reason);
  try {
    const posting = await move(env.db, env.businessId, 'CARD_PURCHASE', {
      wallet_id: card.account_id,
      amount: formatMoney(req.amount),
      notes: req.merchant_name ? `Card ${card.last_4_digits} at ${req.merchant_name}` : `Card ${card.last_4_digits}`,
    });
    return answer(posting, null);
  } catch (err) {
    const declined = err instanceof AppError ? LEDGER_DECLINES[err.code] : undefined;
    if (declined) return answer(null, declined);
    throw err;
  }
}

/**
 * Simulates a balance inquiry on card `req.card_id`: the wallet's available
 * balance, or DECLINED with the reason (the same card checks as an
 * authorization) and no balance. 404 CARD_NOT_FOUND.
 */
export async function simulateCardBalanceInquiry(env: SimulatorEnv, req: Schemas['CardBalanceInquiryRequest']): Promise<Schemas['CardBalanceInquiry']> {
  const card = await cardRow(env.db, env.businessId, req.card_id);
  const reason = await declineReason(env, card, await businessNow(env.db, env.businessId), req.pin);
  const wallet = await env.db('accounts').where({ id: card.account_id, business_id: env.businessId }).first('balance', 'currency', 'status');
  const declined = reason ?? (wallet.status === 'ACTIVE' ? null : 'ACCOUNT_NOT_ACTIVE');
  return {
    card_id: card.id,
    status: declined ? 'DECLINED' : 'APPROVED',
    decline_reason: declined,
    available_balance: declined ? null : wallet.balance,
    currency: wallet.currency,
  };
}
