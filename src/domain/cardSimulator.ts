/**
 * The card transaction simulator (sandbox test helpers, issue 9): what a card
 * network would ask the issuer. An authorization of an amount on a card either
 * debits the card's wallet through the ledger (one balanced CARD_PURCHASE
 * transaction, wallet → settlement account: src/ledger/sql/ledger_move.sql) or is
 * declined with a reason; a balance inquiry answers the wallet's available
 * balance. A decline is an answer (200, `APPROVED`/`DECLINED` with
 * `decline_reason`), not an error: only an unknown card is (404 CARD_NOT_FOUND).
 *
 * Checked in order: the card is ACTIVE (CARD_NOT_ACTIVE), not past its expiry
 * date on the business's clock (CARD_EXPIRED), the PIN when one is sent
 * (INCORRECT_PIN: not the card's, or the card has none), then the ledger's
 * refusals (INSUFFICIENT_FUNDS; WALLET_NOT_ACTIVE as ACCOUNT_NOT_ACTIVE).
 */
import { timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../errors.js';
import { openCardValue, type CardKeyring } from './cardData.js';
import { cardRow, type CardRow } from './cards.js';
import { businessNow } from './clock.js';
import { move } from './ledger.js';
import { formatMoney } from './money.js';

type Schemas = components['schemas'];
type DeclineReason = NonNullable<Schemas['CardAuthorization']['decline_reason']>;

/** What the simulator works with: the business's database handle and the card data keys. */
export interface SimulatorEnv {
  db: Knex;
  businessId: string;
  cardKeys: CardKeyring;
}

/** The reason to decline `card` at `now` with `pin` (if sent), or null. */
function declineReason(keys: CardKeyring, card: CardRow, now: Date, pin: string | undefined): DeclineReason | null {
  if (card.status !== 'ACTIVE') return 'CARD_NOT_ACTIVE';
  if (card.expiry_date < now.toISOString().slice(0, 10)) return 'CARD_EXPIRED';
  if (pin !== undefined) {
    if (card.pin_sealed === null) return 'INCORRECT_PIN';
    const actual = Buffer.from(openCardValue(keys, card.id, 'pin', { sealed: card.pin_sealed, keyVersion: card.pin_key_version! }));
    const sent = Buffer.from(pin);
    if (actual.length !== sent.length || !timingSafeEqual(actual, sent)) return 'INCORRECT_PIN';
  }
  return null;
}

const LEDGER_DECLINES: Record<string, DeclineReason> = { INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS', WALLET_NOT_ACTIVE: 'ACCOUNT_NOT_ACTIVE' };

/**
 * Simulates an authorization of `req.amount` on card `req.card_id`: APPROVED
 * with the CARD_PURCHASE transaction that debited the wallet, or DECLINED with
 * its reason (nothing moved). 404 CARD_NOT_FOUND.
 */
export async function simulateCardAuthorization(env: SimulatorEnv, req: Schemas['CardAuthorizationRequest']): Promise<Schemas['CardAuthorization']> {
  const card = await cardRow(env.db, env.businessId, req.card_id);
  const wallet = await env.db('accounts').where({ id: card.account_id }).first('currency');
  const answer = (transaction: { id: string; reference: string } | null, reason: DeclineReason | null): Schemas['CardAuthorization'] => ({
    card_id: card.id,
    status: reason ? 'DECLINED' : 'APPROVED',
    decline_reason: reason,
    amount: formatMoney(req.amount),
    currency: wallet.currency,
    transaction_id: transaction?.id ?? null,
    transaction_reference: transaction?.reference ?? null,
  });
  const reason = declineReason(env.cardKeys, card, await businessNow(env.db, env.businessId), req.pin);
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
  const reason = declineReason(env.cardKeys, card, await businessNow(env.db, env.businessId), req.pin);
  const wallet = await env.db('accounts').where({ id: card.account_id }).first('balance', 'currency', 'status');
  const declined = reason ?? (wallet.status === 'ACTIVE' ? null : 'ACCOUNT_NOT_ACTIVE');
  return {
    card_id: card.id,
    status: declined ? 'DECLINED' : 'APPROVED',
    decline_reason: declined,
    available_balance: declined ? null : wallet.balance,
    currency: wallet.currency,
  };
}
