/**
 * Cards of a business's customers: the row, its view (never the PAN, CVV or
 * PIN: those leave only through E6, ./sensitiveData.ts), creation at
 * issuance, reading one or a customer's list, and status changes along the card state table
 * (./states.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import { expiryDateFor, newCvv, newPan, openCardValue, panFingerprint, sealCardValue, type CardKeyring } from './data.js';
import { cardMachine, STATUS_CHANGE_EVENT, type CardState } from './states.js';

type Schemas = components['schemas'];
export type CardView = Schemas['Card'];
export type ReplacementReason = Schemas['ReplaceCardRequest']['reason'];

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
  /** Wrong PINs in a row; at 3 the PIN is blocked until a new one is set (./simulator.ts). */
  pin_failed_tries: number;
  /** 0 for a newly drawn PAN; a replacement that keeps the PAN has its predecessor's + 1. */
  pan_generation: number;
  replaces_card_id: string | null;
  replaced_by_card_id: string | null;
  replacement_reason: ReplacementReason | null;
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
    replaces_card_id: row.replaces_card_id,
    replaced_by_card_id: row.replaced_by_card_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The card `id` of the business, locked when `lock`; 404 CARD_NOT_FOUND (also another business's). */
export async function cardRow(db: Knex, businessId: string, id: string, lock = false): Promise<CardRow> {
  const query = db('cards').where({ id, business_id: businessId });
  if (lock) query.forNoKeyUpdate();
  const row = await query.first();
  if (!row) throw new AppError('CARD_NOT_FOUND', `No card ${id} for this business.`);
  return row;
}

/** Attempts at a PAN whose fingerprint is free before giving up (a clash is ~1 in 10^9 per card issued). */
const PAN_ATTEMPTS = 5;

/** What a new card row is made of, besides its card data. */
type NewCard = Pick<CardRow, 'business_id' | 'customer_id' | 'account_id' | 'issuance_id' | 'type' | 'status' | 'design'> &
  Partial<Pick<CardRow, 'replaces_card_id' | 'replacement_reason'>>;

/**
 * Inserts card `id` with a PAN: `kept` (a replacement keeping its predecessor's
 * PAN, one generation later) or a newly drawn one, unique across businesses by the
 * PAN directory's key (`card_pans`: fingerprint, generation): the PAN is claimed
 * there first, a clash claims nothing and another PAN is drawn, the plaintext is
 * never looked up. The card's token is entered in the token directory
 * (`card_tokens`) in the same transaction. A new CVV and expiry at `now`, the `pin`
 * if given; everything sealed under the current key.
 */
async function insertCard(
  trx: Knex,
  keys: CardKeyring,
  card: NewCard,
  now: Date,
  data: { kept?: { pan: string; generation: number }; pin?: string | null } = {},
): Promise<CardRow> {
  const id = randomUUID();
  const pin = data.pin ? sealCardValue(keys, id, 'pin', data.pin) : undefined;
  for (let attempt = 0; attempt < (data.kept ? 1 : PAN_ATTEMPTS); attempt++) {
    const pan = data.kept?.pan ?? newPan();
    const fingerprint = { pan_fingerprint: panFingerprint(keys, pan), pan_generation: data.kept?.generation ?? 0 };
    const claimed = await trx('card_pans')
      .insert({ ...fingerprint, business_id: card.business_id, card_id: id })
      .onConflict(['pan_fingerprint', 'pan_generation'])
      .ignore()
      .returning('card_id');
    if (!claimed.length) continue;
    const sealedPan = sealCardValue(keys, id, 'pan', pan);
    const sealedCvv = sealCardValue(keys, id, 'cvv', newCvv());
    const [row] = await trx('cards')
      .insert({
        ...card,
        ...fingerprint,
        id,
        last_4_digits: pan.slice(-4),
        expiry_date: expiryDateFor(now),
        pan_sealed: sealedPan.sealed,
        pan_key_version: sealedPan.keyVersion,
        cvv_sealed: sealedCvv.sealed,
        cvv_key_version: sealedCvv.keyVersion,
        pin_sealed: pin?.sealed ?? null,
        pin_key_version: pin?.keyVersion ?? null,
      })
      .returning('*');
    await trx('card_tokens').insert({ token: row.token, business_id: row.business_id, card_id: row.id });
    return row;
  }
  throw new Error(`no free PAN after ${PAN_ATTEMPTS} attempts`);
}

/**
 * Creates the card of an issuance at `now` (business clock), with a new PAN, CVV
 * and expiry. A virtual card is ACTIVE, a physical one PENDING_ACTIVATION.
 */
export function createCard(
  trx: Knex,
  keys: CardKeyring,
  issuance: { id: string; business_id: string; customer_id: string; account_id: string; card_type: CardRow['type']; design: string },
  now: Date,
): Promise<CardRow> {
  const { business_id, customer_id, account_id, design } = issuance;
  const status = issuance.card_type === 'VIRTUAL' ? 'ACTIVE' : 'PENDING_ACTIVATION';
  return insertCard(trx, keys, { business_id, customer_id, account_id, issuance_id: issuance.id, type: issuance.card_type, status, design }, now);
}

/**
 * Creates the replacement of card `old` (locked by the caller) at `now`: same
 * type, design, wallet and PIN; a new CVV and expiry; the PAN kept for a
 * DAMAGED or EXPIRED card, a new one for a LOST or STOLEN card. A virtual
 * replacement is ACTIVE, a physical one PENDING_ACTIVATION. Links both cards and
 * applies `oldStatus` to the old one (LOST/STOLEN at once; CLOSED once the new
 * card is ACTIVE). Returns the new card.
 */
export async function createReplacementCard(trx: Knex, keys: CardKeyring, old: CardRow, reason: ReplacementReason, now: Date, oldStatus: CardState): Promise<CardRow> {
  const open = (field: 'pan' | 'pin', sealed: string, keyVersion: number) => openCardValue(keys, old.id, field, { sealed, keyVersion });
  const keepPan = reason === 'DAMAGED' || reason === 'EXPIRED';
  const status = old.type === 'VIRTUAL' ? 'ACTIVE' : 'PENDING_ACTIVATION';
  const card = await insertCard(
    trx,
    keys,
    { ...pickCard(old), status, replaces_card_id: old.id, replacement_reason: reason },
    now,
    {
      kept: keepPan ? { pan: open('pan', old.pan_sealed, old.pan_key_version), generation: old.pan_generation + 1 } : undefined,
      pin: old.pin_sealed === null ? null : open('pin', old.pin_sealed, old.pin_key_version!),
    },
  );
  const endsNow = keepPan && status === 'ACTIVE' ? cardMachine.next(old.status, 'CLOSE') : oldStatus;
  await trx('cards').where({ id: old.id, business_id: old.business_id }).update({ replaced_by_card_id: card.id, status: endsNow, updated_at: trx.fn.now(3) });
  return card;
}

const pickCard = (c: CardRow): Omit<NewCard, 'status'> => ({
  business_id: c.business_id,
  customer_id: c.customer_id,
  account_id: c.account_id,
  issuance_id: c.issuance_id,
  type: c.type,
  design: c.design,
});

/**
 * listCustomerCards: a page of the cards issued to customer `customerId` of the business,
 * newest first, replaced and closed ones included; read through the index on (business_id,
 * customer_id). Whether the customer exists is the caller's to check (a customer without
 * cards and an unknown one both have none here). Throws 400 INVALID_CURSOR.
 */
export async function listCustomerCards(db: Knex, businessId: string, customerId: string, page: PageQuery): Promise<Page<CardView>> {
  const query = db('cards as k').where({ 'k.business_id': businessId, 'k.customer_id': customerId }).select('k.*');
  return paginate(query, page, (rows: CardRow[]) => rows.map(toCardView), 'k');
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
    const next = cardMachine.next(row.status, STATUS_CHANGE_EVENT[status]);
    const [updated] = await trx('cards').where({ id, business_id: businessId }).update({ status: next, updated_at: trx.fn.now(3) }).returning('*');
    return toCardView(updated);
  });
}
