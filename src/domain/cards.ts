/**
 * Cards of a business's customers: the row, its view (never the PAN, CVV or
 * PIN: those leave only through E6, ./cardSensitiveData.ts), creation at
 * issuance, reading, and status changes along the card state table
 * (./cardStates.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../errors.js';
import { expiryDateFor, newCvv, newPan, panFingerprint, sealCardValue, type CardKeyring } from './cardData.js';
import { nextCardState, STATUS_CHANGE_EVENT, type CardState } from './cardStates.js';

type Schemas = components['schemas'];
export type CardView = Schemas['Card'];

/** A row of `cards`. */
export interface CardRow {
  id: string;
  business_id: string;
  customer_id: string;
  account_id: string;
  issuance_id: string;
  /** int8 comes back as a string (src/db/knex.ts). */
  token: string;
  type: Schemas['CardType'];
  status: CardState;
  design: string;
  last_4_digits: string;
  expiry_date: string;
  pan_fingerprint: string;
  pan_sealed: string;
  pan_key_version: number;
  cvv_sealed: string;
  cvv_key_version: number;
  pin_sealed: string | null;
  pin_key_version: number | null;
  created_at: Date;
  updated_at: Date;
}

/** The card as the API shows it. */
export function toCardView(row: CardRow): CardView {
  return {
    id: row.id,
    account_id: row.account_id,
    token: Number(row.token),
    type: row.type,
    status: row.status,
    last_4_digits: row.last_4_digits,
    expiry_date: row.expiry_date,
    design: row.design,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The card `id` of the business, locked when `lock`; 404 CARD_NOT_FOUND (also another business's). */
export async function cardRow(db: Knex, businessId: string, id: string, lock = false): Promise<CardRow> {
  const query = db('cards').where({ id, business_id: businessId });
  if (lock) query.forUpdate();
  const row = await query.first();
  if (!row) throw new AppError('CARD_NOT_FOUND', `No card ${id} for this business.`);
  return row;
}

/** Attempts at a PAN whose fingerprint is free before giving up (a clash is ~1 in 10^9 per card issued). */
const PAN_ATTEMPTS = 5;

/**
 * Creates the card of an issuance at `now` (business clock): a new PAN (unique
 * by its fingerprint's unique index: a clash inserts nothing and a new PAN is
 * drawn, the plaintext is never looked up), a CVV and the expiry, sealed under
 * the current key. A virtual card is ACTIVE, a physical one PENDING_ACTIVATION.
 */
export async function createCard(
  trx: Knex,
  keys: CardKeyring,
  issuance: { id: string; business_id: string; customer_id: string; account_id: string; card_type: CardRow['type']; design: string },
  now: Date,
): Promise<CardRow> {
  const id = randomUUID();
  for (let attempt = 0; attempt < PAN_ATTEMPTS; attempt++) {
    const pan = newPan();
    const sealedPan = sealCardValue(keys, id, 'pan', pan);
    const sealedCvv = sealCardValue(keys, id, 'cvv', newCvv());
    const [row] = await trx('cards')
      .insert({
        id,
        business_id: issuance.business_id,
        customer_id: issuance.customer_id,
        account_id: issuance.account_id,
        issuance_id: issuance.id,
        type: issuance.card_type,
        status: issuance.card_type === 'VIRTUAL' ? 'ACTIVE' : 'PENDING_ACTIVATION',
        design: issuance.design,
        last_4_digits: pan.slice(-4),
        expiry_date: expiryDateFor(now),
        pan_fingerprint: panFingerprint(keys, pan),
        pan_sealed: sealedPan.sealed,
        pan_key_version: sealedPan.keyVersion,
        cvv_sealed: sealedCvv.sealed,
        cvv_key_version: sealedCvv.keyVersion,
      })
      .onConflict('pan_fingerprint')
      .ignore()
      .returning('*');
    if (row) return row;
  }
  throw new Error(`no free PAN after ${PAN_ATTEMPTS} attempts`);
}

/** The card `id` of the business; 404 CARD_NOT_FOUND. */
export async function getCard(db: Knex, businessId: string, id: string): Promise<CardView> {
  return toCardView(await cardRow(db, businessId, id));
}

/**
 * Moves the card to `status` along the card state table; the status it already
 * has changes nothing. 404 CARD_NOT_FOUND; 409 CARD_STATUS_NOT_ALLOWED for a
 * move the table does not allow (nothing changes).
 */
export async function changeCardStatus(db: Knex, businessId: string, id: string, status: Schemas['CardStatusChangeRequest']['status']): Promise<CardView> {
  return db.transaction(async (trx) => {
    const row = await cardRow(trx, businessId, id, true);
    if (row.status === status) return toCardView(row);
    const next = nextCardState(row.status, STATUS_CHANGE_EVENT[status]);
    const [updated] = await trx('cards').where({ id }).update({ status: next, updated_at: trx.fn.now(3) }).returning('*');
    return toCardView(updated);
  });
}
