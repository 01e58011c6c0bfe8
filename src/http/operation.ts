/**
 * Typed operation handlers, derived from the openapi-typescript output in
 * generated/types. A handler map must name every operationId of its document
 * (`OperationMap<operations>`), and each handler may only return a success
 * status and body that its document declares: both fail to compile otherwise.
 */
import type { Readable } from 'node:stream';
import { streamListCsv, type CsvColumn } from '../kernel/csv.js';
import type { Knex } from 'knex';
import type { Context as KoaContext } from 'koa';
import { AppError } from '../kernel/errors.js';
import type { KeyClaim } from '../kernel/idempotency/idempotency.js';
import type { Permission } from '../kernel/permissions.js';
import type { Principal, Services } from '../kernel/services.js';

type JsonOf<C> = C extends { 'application/json': infer B } ? B : never;
type BodyOf<Op> = Op extends { requestBody: { content: infer C } }
  ? JsonOf<C>
  : Op extends { requestBody?: { content: infer C } }
    ? JsonOf<C> | undefined
    : undefined;
type ParamsOf<Op, Where extends string> = Op extends { parameters: { [K in Where]?: infer P } }
  ? [P] extends [never] ? Record<string, never> : NonNullable<P>
  : Record<string, never>;

type SuccessStatus = 200 | 201 | 202;
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : undefined;
/** A text body (e.g. CSV) may also be a stream of its bytes, sent as it is read (Koa pipes it). */
type Streamable<B> = [B] extends [string] ? B | Readable : B;

/** What a handler returns: one of the operation's documented success responses. */
export type OperationResult<Op extends { responses: object }> = {
  [S in Extract<keyof Op['responses'], SuccessStatus>]: {
    status: S;
    body: Streamable<ContentOf<Op['responses'][S]>>;
    /** Media type when the operation offers several (default application/json). */
    contentType?: string;
    /** Headers of the answer itself (a created resource's `Location`), kept with it for a replay. */
    headers?: Record<string, string>;
  };
}[Extract<keyof Op['responses'], SuccessStatus>];

/** The media type of every CSV answer (src/kernel/csv.ts). */
export const CSV_TYPE = 'text/csv; charset=utf-8';

/**
 * The answer of a list's CSV export: 200 with the list as CSV under `columns`, streamed as
 * `list` reads it page by page (src/kernel/csv.ts, streamListCsv). Rejects with the first
 * page's refusal (a bad filter, an unknown parent), so that it is a problem response.
 */
export async function csvExport<T>(columns: readonly CsvColumn<T>[], list: Parameters<typeof streamListCsv<T>>[1]) {
  return { status: 200 as const, body: await streamListCsv(columns, list), contentType: CSV_TYPE };
}

/** The validated request as a handler sees it. */
export interface OperationContext<Op> {
  body: BodyOf<Op>;
  path: ParamsOf<Op, 'path'>;
  query: ParamsOf<Op, 'query'>;
  /** Null only on operations with `security: []` and on `signature` operations. */
  principal: Principal | null;
  db: Knex;
  /**
   * The request's Idempotency-Key (idempotent operations called with one):
   * the operation passes it to its ledger call, which claims it (src/kernel/idempotency/idempotency.ts).
   */
  idempotency: KeyClaim | null;
  services: Services;
  koa: KoaContext;
  /** The request's API version (the header's, else its business's): what a handler renders stored shapes at (events). */
  apiVersion: string;
}

/**
 * Who may call an operation: `public` (document says `security: []`),
 * `platform` or `business` client kinds, `any` authenticated client, or
 * `signature`: a provider whose HMAC signature the document's signature scheme
 * verifies (no principal; see ./signatures.ts).
 */
export type Access = 'public' | 'platform' | 'business' | 'any' | 'signature';

export interface OperationSpec<Op extends { responses: object }> {
  access: Access;
  /**
   * Honour `Idempotency-Key` (src/kernel/idempotency/idempotency.ts): `true` for the
   * money-moving POSTs, whose ledger call takes the key (`ctx.idempotency`); `'transaction'`
   * for creates, which the edge runs in one transaction with the key (keyedTransaction): the
   * handler writes through `ctx.db`, which is that transaction.
   */
  idempotent?: true | 'transaction';
  /** With `idempotent: 'transaction'`: the answer holds a secret shown once (a new business's client secret), so its kept copy for replays is sealed. */
  sealReplay?: true;
  /** A public operation counted against its caller's address's rate limit (the token request: it checks a secret). */
  countsAddress?: true;
  /** A portal sign-in: counted against its address's sign-in limit before the handler checks a password (src/http/rateLimit.ts). */
  countsSignIns?: true;
  handle(ctx: OperationContext<Op>): Promise<OperationResult<Op>>;
}

/** One spec per operationId of a document's `operations` type. */
export type OperationMap<Ops> = {
  [K in keyof Ops]: Ops[K] extends { responses: object } ? OperationSpec<Ops[K]> : never;
};

/** The business a BUSINESS principal acts for (access `business` guarantees one). */
export function businessIdOf(ctx: { principal: Principal | null }): string {
  const id = ctx.principal?.businessId;
  if (!id) throw new AppError('FORBIDDEN', 'This operation needs a business token.');
  return id;
}

/** What the caller holds, and so may grant: its permissions as the HTTP layer read them (a key's or a portal user's role's); none without a principal. */
export function heldPermissions(ctx: { principal: Principal | null }): readonly Permission[] {
  return ctx.principal?.permissions ?? [];
}
