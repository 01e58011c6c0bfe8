/**
 * The one OTP engine: every flow that proves a customer holds a mobile number
 * or confirms a sensitive step (onboarding, mobile number change, and the card
 * flows next) issues and verifies its codes here.
 *
 * - Codes come from `crypto.randomInt` (a CSPRNG), `digits` long (4 to 8).
 * - Only a keyed hash is stored: HMAC-SHA256 over `<operation id>:<code>` with
 *   OTP_HASH_KEY (generated once and kept in `settings` when unset). The code
 *   leaves this module only through the caller's `deliver` (the SMS); it is
 *   never returned, logged or stored in clear.
 * - An operation is PENDING until it ends VERIFIED, FAILED (attempts used up,
 *   or replaced by a resend) or EXPIRED; those three are final.
 * - Attempts are counted by one atomic `UPDATE … RETURNING` that only matches a
 *   PENDING, unexpired operation with attempts left, so parallel wrong guesses
 *   can never pass `max_attempts` (PostgreSQL re-checks the WHERE after each
 *   row lock; a CHECK constraint repeats the cap).
 * - A resend issues a new operation (the old one, if PENDING, becomes FAILED),
 *   after a cool-down and at most `maxResends` times per chain.
 * Verification reports an outcome instead of throwing, so that the caller can
 * commit the counted attempt (and any state move) before answering the error
 * from `otpFailure` (seed codes: INVALID_OTP_FORMAT, OTP_EXPIRED,
 * OTP_MAX_ATTEMPTS_REACHED on the attempt that uses the last one up,
 * OTP_INCORRECT, OTP_OPERATION_NOT_FOUND, and OTP_OPERATION_WRONG_STATUS 412 for
 * any verification of an operation already VERIFIED or FAILED).
 */
import { createHmac, randomInt, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError } from '../errors.js';

/** How codes of one flow are made and checked. */
export interface OtpPolicy {
  /** Code length in digits, 4 to 8. */
  digits: number;
  /** Lifetime of a code, seconds. */
  ttlSeconds: number;
  /** Verification attempts an operation allows; the last wrong one FAILS it. */
  maxAttempts: number;
  /** Seconds after a send before a resend is allowed. */
  resendCooldownSeconds: number;
  /** Resends allowed after the first send. */
  maxResends: number;
}

export type OtpStatus = 'PENDING' | 'VERIFIED' | 'FAILED' | 'EXPIRED';

/** What a verification found; `otpFailure` turns every outcome but VERIFIED into the seed's error. */
export type OtpOutcome =
  | { result: 'VERIFIED' }
  | { result: 'INCORRECT'; attemptsLeft: number }
  | { result: 'MAX_ATTEMPTS_REACHED' }
  | { result: 'EXPIRED' }
  | { result: 'WRONG_STATUS'; status: OtpStatus }
  | { result: 'NOT_FOUND' };

/** A row of `otp_operations` (without the hash). */
export interface OtpOperationRow {
  id: string;
  business_id: string;
  purpose: string;
  mobile_number: string;
  digits: number;
  status: OtpStatus;
  attempts: number;
  max_attempts: number;
  resend_count: number;
  sent_at: Date;
  expires_at: Date;
  verified_at: Date | null;
}

function codeHash(key: Buffer, operationId: string, code: string): string {
  return createHmac('sha256', key).update(`${operationId}:${code}`).digest('hex');
}

function newCode(digits: number): string {
  if (!Number.isInteger(digits) || digits < 4 || digits > 8) throw new Error(`OTP length must be 4 to 8 digits, got ${digits}`);
  return String(randomInt(0, 10 ** digits)).padStart(digits, '0');
}

const addSeconds = (date: Date, seconds: number): Date => new Date(date.getTime() + seconds * 1000);

export interface IssueRequest {
  businessId: string;
  /** What the code confirms, e.g. ONBOARDING (kept for audit). */
  purpose: string;
  mobileNumber: string;
  policy: OtpPolicy;
  /** The business's clock. */
  now: Date;
  /** Sends the code (and nothing else learns it); a rejection aborts the issue. */
  deliver: (code: string) => Promise<void>;
}

async function insertOperation(db: Knex, key: Buffer, req: IssueRequest, chain: { resendCount: number; previousId: string | null }): Promise<string> {
  const id = randomUUID();
  const code = newCode(req.policy.digits);
  await db('otp_operations').insert({
    id,
    business_id: req.businessId,
    purpose: req.purpose,
    mobile_number: req.mobileNumber,
    code_hash: codeHash(key, id, code),
    digits: req.policy.digits,
    status: 'PENDING',
    max_attempts: req.policy.maxAttempts,
    resend_count: chain.resendCount,
    previous_operation_id: chain.previousId,
    sent_at: req.now,
    expires_at: addSeconds(req.now, req.policy.ttlSeconds),
  });
  await req.deliver(code);
  return id;
}

/**
 * Creates a PENDING operation and delivers its code; returns the operation id.
 * Run it in the caller's transaction: a failed delivery rolls the operation back.
 */
export function issueOtp(db: Knex, key: Buffer, req: IssueRequest): Promise<string> {
  return insertOperation(db, key, req, { resendCount: 0, previousId: null });
}

/**
 * Replaces operation `operationId` with a new one and delivers its code;
 * returns the new id. Throws 429 OTP_RESEND_TOO_SOON (with Retry-After) inside
 * the cool-down and 422 OTP_RESEND_LIMIT_REACHED after `maxResends`; 404
 * OTP_OPERATION_NOT_FOUND for an unknown operation; 412
 * OTP_OPERATION_WRONG_STATUS for a VERIFIED one. Run it in the caller's transaction.
 */
export async function resendOtp(db: Knex, key: Buffer, operationId: string, req: IssueRequest): Promise<string> {
  const previous: OtpOperationRow | undefined = await db('otp_operations')
    .where({ id: operationId, business_id: req.businessId })
    .forNoKeyUpdate()
    .first();
  if (!previous) throw otpFailure({ result: 'NOT_FOUND' });
  if (previous.status === 'VERIFIED') throw otpFailure({ result: 'WRONG_STATUS', status: previous.status });
  if (previous.resend_count >= req.policy.maxResends) {
    throw new AppError('OTP_RESEND_LIMIT_REACHED', `The code was already sent ${previous.resend_count + 1} times, the most allowed; start again.`);
  }
  const allowedAt = addSeconds(previous.sent_at, req.policy.resendCooldownSeconds);
  if (req.now < allowedAt) {
    const wait = Math.ceil((allowedAt.getTime() - req.now.getTime()) / 1000);
    throw new AppError('OTP_RESEND_TOO_SOON', `A new code can be sent in ${wait} seconds.`, { headers: { 'Retry-After': String(wait) } });
  }
  await failOtpOperation(db, req.businessId, operationId);
  return insertOperation(db, key, req, { resendCount: previous.resend_count + 1, previousId: operationId });
}

/**
 * Fails operation `operationId` of the business if it is still PENDING (a newer code replaced
 * it, its code went to a number the customer no longer has, or its flow ended otherwise): its
 * code stops working and a verification is 412 OTP_OPERATION_WRONG_STATUS. Changes nothing
 * for an operation in any other state. Run it in the caller's transaction.
 */
export async function failOtpOperation(db: Knex, businessId: string, operationId: string): Promise<void> {
  await db('otp_operations').where({ id: operationId, business_id: businessId, status: 'PENDING' }).update({ status: 'FAILED', updated_at: db.fn.now(3) });
}

/** Throws 400 INVALID_OTP_FORMAT unless `code` is `min` to `max` digits (seed E5/E6 formats). */
export function assertOtpFormat(code: string, min: number, max = min): void {
  if (!new RegExp(`^[0-9]{${min},${max}}$`).test(code)) {
    throw new AppError('INVALID_OTP_FORMAT', `The OTP must be ${min === max ? min : `${min} to ${max}`} digits.`);
  }
}

/**
 * Counts one verification attempt of `code` against operation `operationId`
 * of the business at time `now`, atomically, and reports the outcome. Expiry
 * found here is recorded (EXPIRED). Call `assertOtpFormat` first.
 */
export async function verifyOtp(db: Knex, key: Buffer, args: { operationId: string; businessId: string; code: string; now: Date }): Promise<OtpOutcome> {
  const hash = codeHash(key, args.operationId, args.code);
  const { rows } = await db.raw(
    `UPDATE otp_operations SET
       attempts = attempts + 1,
       status = CASE WHEN code_hash = :hash THEN 'VERIFIED' WHEN attempts + 1 >= max_attempts THEN 'FAILED' ELSE 'PENDING' END,
       verified_at = CASE WHEN code_hash = :hash THEN :now::timestamptz END,
       updated_at = now()
     WHERE id = :id AND business_id = :businessId AND status = 'PENDING' AND expires_at > :now::timestamptz AND attempts < max_attempts
     RETURNING status, attempts, max_attempts`,
    { hash, now: args.now.toISOString(), id: args.operationId, businessId: args.businessId },
  );
  const counted = rows[0] as { status: OtpStatus; attempts: number; max_attempts: number } | undefined;
  if (counted) {
    if (counted.status === 'VERIFIED') return { result: 'VERIFIED' };
    if (counted.status === 'FAILED') return { result: 'MAX_ATTEMPTS_REACHED' };
    return { result: 'INCORRECT', attemptsLeft: counted.max_attempts - counted.attempts };
  }
  const row: OtpOperationRow | undefined = await db('otp_operations').where({ id: args.operationId, business_id: args.businessId }).first();
  if (!row) return { result: 'NOT_FOUND' };
  if (row.status === 'PENDING') {
    // Not counted only because the code expired: record it.
    await db('otp_operations').where({ id: row.id, business_id: row.business_id, status: 'PENDING' }).update({ status: 'EXPIRED', updated_at: db.fn.now(3) });
    return { result: 'EXPIRED' };
  }
  if (row.status === 'EXPIRED') return { result: 'EXPIRED' };
  // Completed or failed (attempts used up by an earlier guess, replaced, voided): the seed's 412.
  return { result: 'WRONG_STATUS', status: row.status };
}

/**
 * Throws 412 OTP_OPERATION_WRONG_STATUS when operation `operationId` already
 * completed (VERIFIED) or failed (FAILED), without counting an attempt: the
 * seed's rule for any OTP verification ("operation already completed or failed
 * → unchanged, 412"), which the flows apply before their own state checks, so
 * that it holds also after their session ended. A PENDING or EXPIRED operation,
 * or none, passes.
 */
export async function assertOtpOperationOpen(db: Knex, businessId: string, operationId: string): Promise<void> {
  const row: Pick<OtpOperationRow, 'status'> | undefined = await db('otp_operations').where({ id: operationId, business_id: businessId }).first('status');
  if (row?.status === 'VERIFIED' || row?.status === 'FAILED') throw otpFailure({ result: 'WRONG_STATUS', status: row.status });
}

/** The seed's error for an outcome other than VERIFIED. */
export function otpFailure(outcome: Exclude<OtpOutcome, { result: 'VERIFIED' }>): AppError {
  switch (outcome.result) {
    case 'INCORRECT':
      return new AppError('OTP_INCORRECT', `The OTP is incorrect; ${outcome.attemptsLeft} attempt${outcome.attemptsLeft === 1 ? '' : 's'} left.`);
    case 'MAX_ATTEMPTS_REACHED':
      return new AppError('OTP_MAX_ATTEMPTS_REACHED', 'The verification attempts are used up; a new code must be requested.');
    case 'EXPIRED':
      return new AppError('OTP_EXPIRED', 'The OTP has expired; a new code must be requested.');
    case 'WRONG_STATUS':
      return new AppError(
        'OTP_OPERATION_WRONG_STATUS',
        outcome.status === 'VERIFIED'
          ? 'The OTP operation is already completed: its code was verified.'
          : 'The OTP operation already failed (its attempts are used up, or a newer code replaced it); a new operation must be started.',
      );
    case 'NOT_FOUND':
      return new AppError('OTP_OPERATION_NOT_FOUND', 'No such OTP operation.');
  }
}

/**
 * The operation `id` (no hash) that a flow's row names: flows store the id of an operation they
 * issued, so it exists; throws (an internal error) when it does not.
 */
export async function otpOperationOf(db: Knex, businessId: string, id: string): Promise<OtpOperationRow> {
  const row = await getOtpOperation(db, businessId, id);
  if (!row) throw new Error(`OTP operation ${id} of business ${businessId} is missing`);
  return row;
}

/** The operation `id` (no hash), or undefined. */
export async function getOtpOperation(db: Knex, businessId: string, id: string): Promise<OtpOperationRow | undefined> {
  return db('otp_operations')
    .where({ id, business_id: businessId })
    .first('id', 'business_id', 'purpose', 'mobile_number', 'digits', 'status', 'attempts', 'max_attempts', 'resend_count', 'sent_at', 'expires_at', 'verified_at');
}
