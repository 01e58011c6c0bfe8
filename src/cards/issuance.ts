/**
 * Card issuance (core API, tag Cards): issue card → complete card issuance
 * (the 4-digit code is sent to the customer) → verify card issuance OTP (seed
 * E5: the card is created and the issuance is ISSUED). Moves follow
 * `cardIssuanceMachine` (./states.ts). Issue card is idempotent by the
 * `idempotency-key` kept on the issuance: a unique index on (business,
 * key) decides, so concurrent duplicates make one issuance.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { CARD_ISSUANCE_OTP_POLICY, cardOtpFailure, verifyCardOtp, type CardEnv } from './otp.js';
import { createCard, toCardView } from './cards.js';
import { cardIssuanceMachine, LIVE_ISSUANCE_STATES, type CardIssuanceEvent, type CardIssuanceState } from './states.js';
import { businessNow } from '../kernel/clock.js';
import { smsDelivery, type FlowEnv } from '../kernel/otp/flowEnv.js';
import type { Locale } from '../kernel/otp/messages.js';
import { assertOtpFormat, assertOtpOperationOpen, getOtpOperation, issueOtp, resendOtp, type IssueRequest } from '../kernel/otp/otp.js';
import { expireRowIfDue, moveRow } from '../kernel/stateMachine.js';
import { customerContact, customerStanding } from '../customers/index.js';

type Schemas = components['schemas'];
export type CardIssuanceView = Schemas['CardIssuance'];

/** An issuance that is not ISSUED expires 24 hours after the request (business clock). */
export const CARD_ISSUANCE_TTL_SECONDS = 24 * 3600;

/** A row of `card_issuances`. */
interface IssuanceRow {
  id: string;
  business_id: string;
  customer_id: string;
  account_id: string;
  idempotency_key: string;
  card_type: Schemas['CardType'];
  design: string;
  status: CardIssuanceState;
  otp_operation_id: string | null;
  card_id: string | null;
  expires_at: Date;
  issued_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

async function toView(db: Knex, row: IssuanceRow): Promise<CardIssuanceView> {
  const account = await db('accounts').where({ id: row.account_id, business_id: row.business_id }).first('account_number');
  const otp = row.otp_operation_id ? await getOtpOperation(db, row.business_id, row.otp_operation_id) : undefined;
  const card = row.card_id ? await db('cards').where({ id: row.card_id, business_id: row.business_id }).first() : undefined;
  return {
    id: row.id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    account_id: row.account_id,
    account_number: account.account_number,
    customer_id: row.customer_id,
    status: row.status,
    idempotency_key: row.idempotency_key,
    card_type: row.card_type,
    design: row.design,
    otp_expires_at: row.status === 'PENDING_OTP_VERIFICATION' && otp ? otp.expires_at.toISOString() : null,
    expires_at: row.expires_at.toISOString(),
    card: card ? toCardView(card) : null,
  };
}

async function issuanceRow(db: Knex, businessId: string, id: string, lock: boolean): Promise<IssuanceRow> {
  const query = db('card_issuances').where({ id, business_id: businessId });
  if (lock) query.forNoKeyUpdate();
  const row = await query.first();
  if (!row) throw new AppError('CARD_ISSUANCE_NOT_FOUND', `No card issuance ${id} for this business.`);
  return row;
}

const move = (trx: Knex, row: IssuanceRow, event: CardIssuanceEvent, changes: Partial<IssuanceRow> = {}) =>
  moveRow<IssuanceRow, CardIssuanceEvent>(trx, 'card_issuances', cardIssuanceMachine, row, event, changes);

/** Records the expiry of a live issuance past its `expires_at`, on its own. */
async function expireIfDue(db: Knex, businessId: string, id: string, now: Date): Promise<void> {
  await expireRowIfDue<IssuanceRow>(db, 'card_issuances', { id, business_id: businessId, live: LIVE_ISSUANCE_STATES, now }, (trx, row) => move(trx, row, 'EXPIRE'));
}

/** The existing issuance of `key` when it was asked for with the same request; 422 IDEMPOTENCY_KEY_REUSED otherwise. */
function sameRequest(row: IssuanceRow, req: { customer_id: string; card_type: string; design: string }): IssuanceRow {
  if (row.customer_id !== req.customer_id || row.card_type !== req.card_type || row.design !== req.design) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency-key was used for another card request.');
  }
  return row;
}

/**
 * Issue card: records an issuance in PENDING_COMPLETION for the ACTIVE customer's
 * wallet. The same request with the same `key` answers the existing issuance
 * (`created: false`). 404 CUSTOMER_NOT_FOUND, 409 CUSTOMER_NOT_ACTIVE, 422
 * WALLET_NOT_ACTIVE, 422 IDEMPOTENCY_KEY_REUSED.
 */
export async function issueCard(env: FlowEnv, key: string, req: Schemas['CardIssuanceRequest']): Promise<{ created: boolean; issuance: CardIssuanceView }> {
  const wanted = { customer_id: req.customer_id, card_type: req.type ?? 'VIRTUAL', design: req.design ?? 'CLASSIC' };
  const now = await businessNow(env.db, env.businessId);
  const existing = (trx: Knex) => trx('card_issuances').where({ business_id: env.businessId, idempotency_key: key }).first();
  return env.db.transaction(async (trx) => {
    const earlier: IssuanceRow | undefined = await existing(trx);
    if (earlier) return { created: false, issuance: await toView(trx, sameRequest(earlier, wanted)) };
    const customer = await customerStanding(trx, env.businessId, req.customer_id);
    if (!customer) throw new AppError('CUSTOMER_NOT_FOUND', `No customer ${req.customer_id} for this business.`);
    if (customer.status !== 'ACTIVE') throw new AppError('CUSTOMER_NOT_ACTIVE', `The customer is ${customer.status}; cards are issued to ACTIVE customers only.`);
    const wallet = await trx('accounts').where({ id: customer.wallet_id, business_id: env.businessId }).first('status');
    if (wallet.status !== 'ACTIVE') throw new AppError('WALLET_NOT_ACTIVE', `The customer's wallet is ${wallet.status}; cards are issued on ACTIVE wallets only.`);
    const [row] = await trx('card_issuances')
      .insert({
        id: randomUUID(),
        business_id: env.businessId,
        account_id: customer.wallet_id,
        idempotency_key: key,
        status: 'PENDING_COMPLETION',
        expires_at: new Date(now.getTime() + CARD_ISSUANCE_TTL_SECONDS * 1000),
        ...wanted,
      })
      .onConflict(['business_id', 'idempotency_key'])
      .ignore()
      .returning('*');
    // A concurrent request with the same key committed first: answer its issuance.
    if (!row) return { created: false, issuance: await toView(trx, sameRequest(await existing(trx), wanted)) };
    return { created: true, issuance: await toView(trx, row) };
  });
}

/** The issuance `id` (expired first if due); 404 CARD_ISSUANCE_NOT_FOUND. */
export async function getCardIssuance(env: FlowEnv, id: string): Promise<CardIssuanceView> {
  await expireIfDue(env.db, env.businessId, id, await businessNow(env.db, env.businessId));
  return toView(env.db, await issuanceRow(env.db, env.businessId, id, false));
}

/**
 * Complete card issuance: sends a 4-digit code to the customer's current number
 * (again: a new code, after the cool-down, at most 3 times) and moves the
 * issuance to PENDING_OTP_VERIFICATION. 404; 409 CARD_STATUS_NOT_ALLOWED when
 * ISSUED or EXPIRED; 429 OTP_RESEND_TOO_SOON; 422 OTP_RESEND_LIMIT_REACHED;
 * 503 when the SMS provider fails (nothing changes).
 */
export async function completeCardIssuance(env: FlowEnv, id: string, req: { locale?: Locale }): Promise<CardIssuanceView> {
  const now = await businessNow(env.db, env.businessId);
  await expireIfDue(env.db, env.businessId, id, now);
  return env.db.transaction(async (trx) => {
    const row = await issuanceRow(trx, env.businessId, id, true);
    cardIssuanceMachine.next(row.status, 'COMPLETE');
    const customer = await customerContact(trx, row.business_id, row.customer_id);
    const send: IssueRequest = {
      businessId: env.businessId,
      purpose: 'CARD_ISSUANCE',
      mobileNumber: customer.mobile_number,
      policy: CARD_ISSUANCE_OTP_POLICY,
      now,
      deliver: smsDelivery(env, customer.mobile_number, req.locale ?? customer.locale, CARD_ISSUANCE_OTP_POLICY),
    };
    const otpId = row.otp_operation_id ? await resendOtp(trx, env.otpKey, row.otp_operation_id, send) : await issueOtp(trx, env.otpKey, send);
    return toView(trx, await move(trx, row, 'COMPLETE', { otp_operation_id: otpId }));
  });
}

/**
 * Seed E5: verifies the issuance's code; the right one creates the card and
 * ISSUES the issuance. In order: 400 INVALID_OTP_FORMAT; 404
 * CARD_ISSUANCE_NOT_FOUND; 404 OTP_OPERATION_NOT_FOUND (no code sent yet); 412
 * OTP_OPERATION_WRONG_STATUS (its code verified, ISSUED, or failed); 409
 * CARD_STATUS_NOT_ALLOWED (EXPIRED with its code pending);
 * 400 OTP_VERIFICATION_FAILED, OTP_EXPIRED, OTP_INCORRECT,
 * OTP_MAX_ATTEMPTS_REACHED (the attempt is committed first).
 */
export async function verifyCardIssuanceOtp(env: CardEnv, id: string, code: string): Promise<CardIssuanceView> {
  assertOtpFormat(code, CARD_ISSUANCE_OTP_POLICY.digits);
  const now = await businessNow(env.db, env.businessId);
  await expireIfDue(env.db, env.businessId, id, now);
  const { outcome, view } = await env.db.transaction(async (trx) => {
    const row = await issuanceRow(trx, env.businessId, id, true);
    if (!row.otp_operation_id) throw new AppError('OTP_OPERATION_NOT_FOUND', 'No code was asked for this card issuance yet; call completeCardIssuance first.');
    await assertOtpOperationOpen(trx, env.businessId, row.otp_operation_id);
    cardIssuanceMachine.next(row.status, 'VERIFY_OTP');
    const customer = await customerContact(trx, row.business_id, row.customer_id);
    const result = await verifyCardOtp(trx, env, { operationId: row.otp_operation_id, code, now, customerMobileNumber: customer.mobile_number });
    if (result.result !== 'VERIFIED') return { outcome: result, view: undefined };
    const card = await createCard(trx, env.cardKeys, row, now);
    return { outcome: result, view: await toView(trx, await move(trx, row, 'VERIFY_OTP', { card_id: card.id, issued_at: now })) };
  });
  if (outcome.result !== 'VERIFIED') throw cardOtpFailure(outcome, 'E5');
  return view!;
}
