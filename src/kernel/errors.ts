/**
 * Typed errors and the one table that maps error codes to HTTP statuses.
 *
 * Handlers and domain functions throw `AppError(code, detail)`; only
 * `toProblem` (used by the HTTP error middleware) turns one into an RFC 9457
 * problem-details body (source: openapi/API_CONVENTIONS.md, "Errors").
 */

/** Every error code the service answers with, and its HTTP status. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  MALFORMED_JSON: 400,
  UNSUPPORTED_MEDIA_TYPE: 400,
  UNSUPPORTED_API_VERSION: 400,
  INVALID_CURSOR: 400,
  INVALID_OTP_FORMAT: 400,
  WEBHOOK_URL_NOT_ALLOWED: 400,
  OTP_EXPIRED: 400,
  OTP_MAX_ATTEMPTS_REACHED: 400,
  OTP_INCORRECT: 400,
  // Seed E6 names a wrong code OTP_INVALID (E5: OTP_INCORRECT); both tables name OTP_VERIFICATION_FAILED.
  OTP_INVALID: 400,
  OTP_VERIFICATION_FAILED: 400,
  TOTP_INCORRECT: 400,
  UNAUTHORIZED: 401,
  INVALID_CLIENT: 401,
  INVALID_SIGNATURE: 401,
  SIGNATURE_EXPIRED: 401,
  // One answer for every failed portal sign-in (src/businesses/sessions.ts).
  SIGN_IN_FAILED: 401,
  FORBIDDEN: 403,
  // The maker of a payout approval request approving it (src/payouts/approvals.ts).
  MAKER_CANNOT_APPROVE: 403,
  NOT_FOUND: 404,
  BUSINESS_NOT_FOUND: 404,
  WALLET_NOT_FOUND: 404,
  LABEL_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  PAYOUT_NOT_FOUND: 404,
  PAYOUT_WHITELIST_ENTRY_NOT_FOUND: 404,
  BULK_PAYOUT_NOT_FOUND: 404,
  PAYOUT_APPROVAL_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  PORTAL_USER_NOT_FOUND: 404,
  API_REQUEST_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  OTP_OPERATION_NOT_FOUND: 404,
  ONBOARDING_SESSION_NOT_FOUND: 404,
  CUSTOMER_NOT_FOUND: 404,
  CALLBACK_REFERENCE_NOT_FOUND: 404,
  MOBILE_NUMBER_CHANGE_SESSION_NOT_FOUND: 404,
  CARD_ISSUANCE_NOT_FOUND: 404,
  CARD_NOT_FOUND: 404,
  ACTIVATION_CODE_REQUEST_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  WEBHOOK_ENDPOINT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  // An operation or API version past its sunset (src/http/deprecation.ts).
  GONE: 410,
  IDEMPOTENCY_KEY_IN_USE: 409,
  TRANSACTION_ALREADY_REVERSED: 409,
  LABEL_NAME_TAKEN: 409,
  PORTAL_USER_EMAIL_TAKEN: 409,
  LAST_OWNER: 409,
  INVITATION_NOT_ACCEPTED: 409,
  WALLET_BALANCE_NOT_ZERO: 409,
  INVALID_STATUS_TRANSITION: 409,
  WALLET_LOOKUP_AMBIGUOUS: 409,
  // A refused onboarding move names the session's current state (src/customers/onboardingStates.ts).
  ONBOARDING_STATE_PENDING_OTP_VERIFICATION: 409,
  ONBOARDING_STATE_OTP_VERIFIED: 409,
  ONBOARDING_STATE_IDENTITY_VERIFICATION_IN_PROGRESS: 409,
  ONBOARDING_STATE_IDENTITY_VERIFIED: 409,
  ONBOARDING_STATE_SCREENING_PASSED: 409,
  ONBOARDING_STATE_COMPLETED: 409,
  ONBOARDING_STATE_CANCELLED: 409,
  ONBOARDING_STATE_EXPIRED: 409,
  ONBOARDING_STATE_FAILED: 409,
  MOBILE_NUMBER_TAKEN: 409,
  NATIONAL_ID_TAKEN: 409,
  CALLBACK_REPLAYED: 409,
  CUSTOMER_NOT_ACTIVE: 409,
  // A refused card or card issuance move (seed E5), src/cards/states.ts.
  CARD_STATUS_NOT_ALLOWED: 409,
  // A refused move of a tokenization activation code request (src/cards/tokenization.ts).
  ACTIVATION_CODE_REQUEST_STATUS_NOT_ALLOWED: 409,
  WEBHOOK_ENDPOINT_DISABLED: 409,
  // A refused payout move (src/payouts/states.ts), naming the payout's state.
  PAYOUT_STATUS_NOT_ALLOWED: 409,
  // A refused payout approval move (src/payouts/approvalStates.ts), naming the request's state.
  PAYOUT_APPROVAL_STATUS_NOT_ALLOWED: 409,
  // A refused mobile number change move names the session's current state (src/customers/mobileNumberChange/states.ts).
  MOBILE_CHANGE_STATE_PENDING_MOBILE_NUMBER_OWNERSHIP_VERIFICATION: 409,
  MOBILE_CHANGE_STATE_PENDING_IDENTITY_VERIFICATION: 409,
  MOBILE_CHANGE_STATE_IDENTITY_VERIFICATION_IN_PROGRESS: 409,
  MOBILE_CHANGE_STATE_AWAITING_OWNERSHIP_CHECK: 409,
  MOBILE_CHANGE_STATE_COMPLETED: 409,
  MOBILE_CHANGE_STATE_FAILED: 409,
  MOBILE_CHANGE_STATE_EXPIRED: 409,
  MOBILE_CHANGE_STATE_CANCELLED: 409,
  OTP_OPERATION_WRONG_STATUS: 412,
  INVALID_CARD_STATUS: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
  INSUFFICIENT_FUNDS: 422,
  // An approver confirming another amount than the approval request's (src/payouts/approvals.ts).
  APPROVAL_AMOUNT_MISMATCH: 422,
  // createPayout to a receiver not on the business's enforced payout whitelist (src/payouts/sql/payout_create.sql).
  PAYOUT_RECEIVER_NOT_WHITELISTED: 422,
  WALLET_NOT_ACTIVE: 422,
  SAME_WALLET_TRANSFER: 422,
  REFUND_EXCEEDS_ORIGINAL: 422,
  TRANSACTION_NOT_REFUNDABLE: 422,
  TRANSACTION_NOT_REVERSIBLE: 422,
  BALANCE_LIMIT_EXCEEDED: 422,
  OTP_RESEND_LIMIT_REACHED: 422,
  NATIONAL_ID_MISMATCH: 422,
  WEBHOOK_ENDPOINT_NOT_SUBSCRIBED: 422,
  RATE_LIMITED: 429,
  OTP_RESEND_TOO_SOON: 429,
  MOBILE_NUMBER_CHANGE_TOO_SOON: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Headers every error of a code carries unless the thrower sets them (the documents require them). */
const DEFAULT_HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = {
  SERVICE_UNAVAILABLE: { 'Retry-After': '5' },
};

/** One invalid field: `pointer` is a JSON Pointer into the request (RFC 6901). */
export interface FieldError {
  pointer: string;
  detail: string;
}

/** RFC 9457 problem details as this service sends them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  /** Further members a code's problem type defines (RFC 9457 §3.2), e.g. `next_change_allowed_at`. */
  [extension: string]: unknown;
}

/**
 * An expected failure with a stable code. `headers` are added to the
 * response (e.g. `Retry-After` for 409 IDEMPOTENCY_KEY_IN_USE and 429);
 * `extensions` are further members of the problem, as its document declares.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    detail: string,
    opts: { errors?: FieldError[]; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = opts.errors;
    this.headers = { ...DEFAULT_HEADERS[code], ...opts.headers };
    this.extensions = opts.extensions ?? {};
  }
}

/** A 400 VALIDATION_ERROR naming one field of the request body. */
export function invalidField(pointer: string, detail: string): AppError {
  return new AppError('VALIDATION_ERROR', `The request has an invalid field: ${pointer} ${detail}.`, {
    errors: [{ pointer, detail }],
  });
}

function titleOf(code: ErrorCode): string {
  const words = code.toLowerCase().split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The documented maximum lengths (shared.yaml, `Problem` and `ProblemFieldError`) of
 * the members that may repeat the request's own text (a header value, the path, a
 * field name), and of the list of field errors: `toProblem` cuts a longer one to fit.
 */
export const PROBLEM_LIMITS = { detail: 1000, instance: 2048, pointer: 300, fieldDetail: 500, errors: 100 } as const;

/** Marks text that was cut to fit its documented length. */
export const CUT_MARKER = '\u2026';

/** Control characters a problem's text may not hold (its schema's pattern); each becomes U+FFFD. */
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/g;

/** Line breaks, which a pointer may not hold (its pattern is one line); each becomes U+FFFD. */
const LINE_BREAKS = /[\n\r\u2028\u2029]/g;

/** `text` within `max` Unicode characters (JSON Schema's unit), its end replaced by CUT_MARKER when cut. */
export function fitText(text: string, max: number): string {
  const clean = text.replace(CONTROL, '\uFFFD');
  if (clean.length <= max) return clean;
  const chars = Array.from(clean);
  return chars.length <= max ? clean : `${chars.slice(0, max - 1).join('')}${CUT_MARKER}`;
}

/**
 * The request path as `instance` (a URI reference, printable ASCII): within
 * `max` characters, a cut one ending in the percent-encoded CUT_MARKER, never in
 * the middle of a percent-escape.
 */
export function fitInstance(path: string, max = PROBLEM_LIMITS.instance): string {
  const ascii = path.replace(/[^\x21-\x7E]/gu, (c) => (c.length === 1 && c >= '\uD800' && c <= '\uDFFF' ? '%EF%BF%BD' : encodeURIComponent(c)));
  if (ascii.length <= max) return ascii;
  const marker = encodeURIComponent(CUT_MARKER);
  return `${ascii.slice(0, max - marker.length).replace(/%[0-9A-Fa-f]?$/, '')}${marker}`;
}

/**
 * Renders an AppError as problem details for the request `instance` path. Every
 * member that may repeat the request's own text is cut to its documented length
 * here, whatever the error: no input makes a problem break its schema.
 */
export function toProblem(err: AppError, instance: string, requestId: string): Problem {
  return {
    type: `https://errors.wallet.example/${err.code.toLowerCase().replaceAll('_', '-')}`,
    title: titleOf(err.code),
    status: err.status,
    detail: fitText(err.message, PROBLEM_LIMITS.detail),
    instance: fitInstance(instance),
    code: err.code,
    request_id: requestId,
    ...(err.errors
      ? {
          errors: err.errors
            .slice(0, PROBLEM_LIMITS.errors)
            .map((e) => ({ pointer: fitText(e.pointer.replace(LINE_BREAKS, '\uFFFD'), PROBLEM_LIMITS.pointer), detail: fitText(e.detail, PROBLEM_LIMITS.fieldDetail) })),
        }
      : {}),
    ...err.extensions,
  };
}

/** A refusal of the ledger (PostgreSQL `ledger_refusal`): an error code of ERROR_STATUS, its detail and, for VALIDATION_ERROR, the field. */
export interface Refusal {
  code: string;
  detail: string;
  pointer?: string | null;
}

/** The AppError a ledger refusal stands for; null when its code is not one of ERROR_STATUS. */
export function refusalError(refusal: Refusal): AppError | null {
  if (!(refusal.code in ERROR_STATUS)) return null;
  return refusal.pointer ? invalidField(refusal.pointer, refusal.detail) : new AppError(refusal.code as ErrorCode, refusal.detail);
}
