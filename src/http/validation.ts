/**
 * Request validation with openapi-backend's per-operation validators (Ajv,
 * JSON Schema 2020-12, formats on; compiledApi.ts), for the operation the
 * routing table matched: one validator for the JSON body, one for the path,
 * query and header parameters (coercing query and path strings to their
 * schema types). Failures become 400 VALIDATION_ERROR with one JSON Pointer
 * per invalid field (`/field` in the body, `/path/…`, `/query/…`, `/header/…`).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { AppError, invalidField, type FieldError } from '../kernel/errors.js';

/** The parts of a request that are validated. */
export interface RequestParts {
  path: Record<string, string>;
  query: Record<string, unknown>;
  /** Header names in lower case (as Node gives them). */
  headers: Record<string, unknown>;
  body: unknown;
  /** The raw Content-Type header ('' when absent). */
  contentType: string;
}

/** JSON Pointer into the request for an Ajv error from openapi-backend's request schema. */
function toFieldError(err: ErrorObject): FieldError {
  const [, where = '', ...rest] = err.instancePath.split('/');
  let pointer = rest.length ? `/${rest.join('/')}` : '';
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required') pointer += `/${String(params.missingProperty)}`;
  if (err.keyword === 'additionalProperties') pointer += `/${String(params.additionalProperty)}`;
  const prefix = where === 'requestBody' ? '' : where === 'headers' ? '/header' : `/${where}`;
  const detail = err.keyword === 'additionalProperties' ? 'is not allowed' : (err.message ?? 'is invalid');
  return { pointer: `${prefix}${pointer}` || '/', detail };
}

/** A UTF-16 surrogate not in a pair (in `u` mode a pair is one code point, never Cs). */
const LONE_SURROGATE = /\p{Cs}/u;

/** The problem of string `s` (a NUL character or a lone surrogate), or null. */
function stringProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(s)) return 'must not contain a lone UTF-16 surrogate (it is not a Unicode character)';
  return null;
}

/** JSON Pointer (RFC 6901) of the path `keys` below `pointer`. */
const pointerOf = (pointer: string, keys: string[]): string => pointer + keys.map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * Throws 400 VALIDATION_ERROR at the string's JSON Pointer when a string anywhere in
 * `value` (object keys too) holds a NUL character (PostgreSQL rejects them) or a lone
 * UTF-16 surrogate (JSON's `\ud800` escape: not a Unicode character, RFC 8259 §8.2;
 * stored, it would silently become U+FFFD). The pointer is made only for the string that
 * fails: a 1,000-item bulk payout has thousands of strings, all of them usually fine.
 */
export function rejectIllFormedStrings(value: unknown, pointer = ''): void {
  const keys: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      const problem = stringProblem(v);
      if (problem) throw invalidField(pointerOf(pointer, keys) || '/', problem);
    } else if (v && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        keys.push(k);
        const problem = stringProblem(k);
        if (problem) throw invalidField(pointerOf(pointer, keys), problem);
        visit((v as Record<string, unknown>)[k]);
        keys.pop();
      }
    }
  };
  visit(value);
}

/**
 * Validates `parts` with an operation's `validators`. Returns the query with
 * its values coerced to their schema types; throws AppError VALIDATION_ERROR
 * listing every invalid field. Same inputs as openapi-backend's
 * validateRequest: the body is validated when it is an object or the request
 * says it is JSON.
 */
export function validateRequest(validators: ValidateFunction[], parts: RequestParts): Record<string, unknown> {
  // Defined, not assigned: a parameter named `__proto__` stays a parameter (and is refused as unknown).
  const query: Record<string, unknown> = Object.fromEntries(Object.entries(parts.query).map(([name, value]) => [name, Array.isArray(value) ? [...value] : value]));
  const input: Record<string, unknown> = { path: { ...parts.path }, query, header: { ...parts.headers }, cookie: {} };
  if (typeof parts.body === 'object' || parts.contentType === 'application/json') input.requestBody = parts.body;
  const errors: ErrorObject[] = [];
  for (const validate of validators) {
    if (!validate(input) && validate.errors) errors.push(...validate.errors);
  }
  if (errors.length) {
    const fields = errors.map(toFieldError);
    throw new AppError('VALIDATION_ERROR', `The request has ${fields.length} invalid field${fields.length === 1 ? '' : 's'}.`, { errors: fields });
  }
  return query;
}
