/**
 * Every operation of both bundled documents as a callable request: its path filled
 * from the parameters' examples and its documented request example as the body. The
 * sweep and the fault tests call every operation through this list, so an operation
 * added to a document is covered without touching them.
 */
import { randomUUID } from 'node:crypto';
import { loadBundledDocument } from '../../src/http/apiBuild.js';
import { API_VERSIONING } from '../../src/http/versions.js';
import { closedLoopOperations } from '../../src/handlers/closedLoop/index.js';
import { coreOperations } from '../../src/handlers/core/index.js';
import { SIGNATURE_SCHEMES } from '../../src/http/signatures.js';
import { signCallback } from '../../src/providers/signatures.js';
import { TEST_CALLBACK_SECRETS } from './service.js';

/** One operation of a bundled document, ready to be called with its documented examples. */
export interface DocumentedOperation {
  operationId: string;
  summary: string;
  method: string;
  /** Path with the API prefix, parameters filled from their examples. */
  path: string;
  /** Path template with the API prefix, e.g. `/cl/v1/wallets/{wallet_id}`. */
  template: string;
  secured: boolean;
  /** Its `x-permission`: the permission a business token needs, or `none`, `signature`, `platform` (src/kernel/permissions.ts). */
  permission: string;
  /** The provider whose signature the operation requires instead of a token (provider callbacks). */
  signedBy?: (typeof SIGNATURE_SCHEMES)[string];
  statuses: string[];
  /** The documented JSON request example, when the operation takes a body. */
  body?: unknown;
  pathParams: string[];
  queryParams: string[];
  /** Every query parameter with its documented example, as a query string (may be empty). */
  exampleQuery: string;
  /** `X-API-Version` (the newest version: the examples' shapes) and every required header parameter with its documented example (e.g. `Idempotency-Key` of issueCard). */
  exampleHeaders: Record<string, string>;
}

/** The operations of document `name`, whose paths are served under `prefix`. */
export function operationsOf(name: 'closed-loop' | 'core', prefix: string): DocumentedOperation[] {
  const doc = loadBundledDocument(name) as any;
  const resolve = (node: any): any => (node?.$ref ? node.$ref.split('/').slice(1).reduce((n: any, k: string) => n[k], doc) : node);
  const out: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
      const filled = path.replace(/\{(\w+)\}/g, (_, p) => String(params.find((x: any) => x.name === p)?.example ?? randomUUID()));
      const media = op.requestBody?.content?.['application/json'];
      const body = media?.example ?? (media?.examples ? resolve(Object.values<any>(media.examples)[0]).value : undefined);
      const security = op.security ?? doc.security ?? [];
      out.push({
        operationId: op.operationId,
        summary: op.summary ?? '',
        method: method.toUpperCase(),
        path: prefix + filled,
        template: prefix + path,
        secured: security.length > 0,
        permission: op['x-permission'],
        signedBy: SIGNATURE_SCHEMES[Object.keys(security[0] ?? {})[0]],
        statuses: Object.keys(op.responses),
        body,
        pathParams: params.filter((p: any) => p.in === 'path').map((p: any) => p.name),
        queryParams: params.filter((p: any) => p.in === 'query').map((p: any) => p.name),
        exampleQuery: new URLSearchParams(
          params.filter((p: any) => p.in === 'query' && p.example !== undefined).map((p: any) => [p.name, String(p.example)]),
        ).toString(),
        // The examples are the newest version's shapes: the call names that version, whatever the business's default.
        exampleHeaders: {
          'X-API-Version': API_VERSIONING.latest,
          ...Object.fromEntries(params.filter((p: any) => p.in === 'header' && p.required && p.example !== undefined).map((p: any) => [p.name, String(p.example)])),
        },
      });
    }
  }
  return out;
}

/**
 * The headers a call of `op` with `body` needs besides a token: its required header
 * parameters' examples, and a valid provider signature (as of `timestamp`, unix seconds)
 * for a signed operation.
 */
export function signatureHeaders(op: Pick<DocumentedOperation, 'signedBy'> & Partial<Pick<DocumentedOperation, 'exampleHeaders'>>, body: unknown, timestamp?: number): Record<string, string> {
  const headers = { ...op.exampleHeaders };
  if (!op.signedBy) return headers;
  return { ...headers, 'X-Provider-Signature': signCallback(Buffer.from(TEST_CALLBACK_SECRETS[op.signedBy]), JSON.stringify(body), timestamp) };
}

/** Every operation of both documents. */
export const documentedOperations: DocumentedOperation[] = [...operationsOf('closed-loop', '/cl/v1'), ...operationsOf('core', '')];

/**
 * The access rule of an operation's handler, from either document's handler map (the two
 * documents' token requests, `createToken` and `createCoreToken`, share one handler).
 */
export const accessOf = (operationId: string): string => specOf(operationId)?.access ?? 'public';

/** The handler spec of an operation, from either document's handler map. */
const specOf = (operationId: string): { access: string; countsAddress?: true } | undefined =>
  ({ ...coreOperations, ...closedLoopOperations } as Record<string, { access: string; countsAddress?: true }>)[operationId];


/**
 * The operations that reach the database (every one that is not public, and the token
 * request): the fault and outage tests call each of them, with its example request and
 * a token of the kind it needs.
 */
export const databaseOperations = (): DocumentedOperation[] =>
  documentedOperations.filter((o) => accessOf(o.operationId) !== 'public' || specOf(o.operationId)?.countsAddress === true);

/** The operations a portal session calls for itself: a bearer token has no session (401 before any query), so they are sent with one. */
export const SESSION_OPERATIONS = new Set(['getPortalSession', 'endPortalSession', 'endPortalSessions', 'reauthenticatePortalSession']);

/** An invitation token of the form the service draws (`<business id>.<secret>`): its lookup reaches the database. */
const WELL_FORMED_INVITATION = `00000000-0000-4000-8000-000000000000.${'A'.repeat(43)}`;

/** Path, with the example query, and body of `op` as the fault and outage tests send it. */
export function exampleRequest(op: DocumentedOperation): { path: string; body: unknown } {
  // The examples' `business_id` names the example business, refused before any query; an
  // example invitation token names none, so a well-formed one is sent.
  const { business_id: _, ...body } = (op.body ?? {}) as Record<string, unknown>;
  if (typeof body.token === 'string') body.token = WELL_FORMED_INVITATION;
  return { path: op.exampleQuery ? `${op.path}?${op.exampleQuery}` : op.path, body: op.body === undefined ? undefined : body };
}
