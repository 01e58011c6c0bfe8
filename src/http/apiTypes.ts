/**
 * The shapes of an API document as the service runs it, shared by the loader
 * (./compiledApi.ts) and the builder (./apiBuild.ts), which the loader imports
 * only when it builds a document in process.
 */
import type { ValidateFunction } from 'ajv';
import type { DeprecatedParameter, Deprecation } from './deprecation.js';

export type DocumentName = 'closed-loop' | 'core';

/** One operation of a document. */
export interface ApiOperation {
  operationId: string;
  /** Lower case, as openapi-backend gives it. */
  method: string;
  /** The document's path template, e.g. `/wallets/{wallet_id}`. */
  path: string;
  /** The operation's security requirements (the document's when it names none) as JSON: `[]` for a public operation. */
  security: string;
  /**
   * Its `x-permission`: the permission a business token needs (src/kernel/permissions.ts), or
   * `none` (public), `signature` (a provider's callback), `platform` (platform tokens only).
   */
  permission: string;
  /** Its `x-reauthentication: true`: a portal user's session needs a recent TOTP code for it (src/http/admission.ts). */
  reauthentication: boolean;
  /**
   * The pointer of its `x-reauthentication: { amount: <pointer> }`: the amount in the request
   * body at or above PORTAL_REAUTHENTICATION_AMOUNT of which a portal user's session needs a
   * recent TOTP code (src/http/reauthentication.ts).
   */
  reauthenticationAmount?: string;
  /** The media types its request body may be sent as (none when it takes no body). */
  mediaTypes: string[];
  /** Its deprecation (`deprecated: true`, `x-deprecated-at`, `x-sunset`), when deprecated. */
  deprecation?: Deprecation;
  /** Its deprecated parameters: a request that sends one gets the deprecation headers. */
  deprecatedParameters: DeprecatedParameter[];
}

/**
 * A document's operations and, by operationId, its request validators (body first, then
 * parameters): the newest version's, or `version`'s where a version change reshapes the
 * operation's request for it.
 */
export interface CompiledApi {
  operations: ApiOperation[];
  validators(operationId: string, version?: string): ValidateFunction[];
}
