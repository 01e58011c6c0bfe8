/**
 * The gate's own rules: what `redocly diff` does not see or rates too low for a client
 * generated from the documents (an SDK), each returning changes in the form of
 * scripts/apiContract.ts compareDocuments. Sources: API_CONVENTIONS.md "Evolution";
 * oasdiff's breaking-change checks (path parameters, response headers, sunset dates).
 */
import { isServicePage, PAGE_MEDIA_TYPES } from '../../src/kernel/servicePages.js';
import { at, operationsOf, pointerOf, resolveRef, segments, usages, type Json, type Operation, type Side } from './document.js';

export type ChangeKind = 'breaking' | 'additive' | 'documentation';

/** When an operation was deprecated, when it may go, and the operationId that replaces it. */
export interface DeprecationNote {
  at?: string;
  sunset?: string;
  successor?: string;
  /** The successor's `METHOD path` in the revision. */
  successorOperation?: string;
}

/** One change between a released document and its revision. */
export interface Change {
  kind: ChangeKind;
  /** Where, for people: `POST /webhooks requestBody/…/secret · maxLength`, or a JSON pointer. */
  where: string;
  /** What happened, e.g. "`maxLength` changed from '200' to '90'." (the tool's message when it has one). */
  what: string;
  /** The rule that rated it (`redocly diff`'s, or one of this module's). */
  rule?: string;
  /** JSON pointer in the document that has the change (the revision's; the release's for a removal). */
  pointer: string;
  /** Why a change the tool rated major is not breaking (diff-exceptions.yaml, or a passed sunset). */
  excused?: string;
  /** The operation it reaches (Operation.key); a change in a shared component is listed once per operation. */
  operation?: string;
  /** Where in the operation (pointer segments under it), or in `component` when it lies in one. */
  location?: string[];
  /** The component the change lies in (`WebhookEndpoint`), reached from `operation`. */
  component?: string;
  side?: Side;
  event?: 'added' | 'removed' | 'modified';
  /** The property that was modified (`maxLength`, `enum`). */
  property?: string;
  /** A deprecation the revision adds (the changelog lists these apart). */
  deprecation?: DeprecationNote;
  /** The operationId of an added or removed operation. */
  operationId?: string;
  /** An added or removed parameter, for people: ``query parameter `name` ``. */
  parameter?: string;
  /** Whether an added field or parameter is required. */
  required?: boolean;
}

/** `/payouts/{payout_id}` → `/payouts/{}`: operations are the same whatever their path parameters are called. */
const template = (p: string): string => p.replace(/\{[^}]*\}/g, '{}');
const matchKey = (op: Operation): string => `${op.top} ${op.method} ${template(op.path)}`;

/** The operations of `base` with the revision's operation each became (same method, same path up to parameter names). */
function pairs(base: Json, revision: Json): [Operation, Operation][] {
  const after = new Map(operationsOf(revision).map((op) => [matchKey(op), op]));
  return operationsOf(base).flatMap((op) => {
    const now = after.get(matchKey(op));
    return now ? [[op, now] as [Operation, Operation]] : [];
  });
}

const opPointer = (op: Operation, ...rest: string[]): string => pointerOf([op.top, op.path, op.method, ...rest]);

/** A change at operation `op` (of the revision) found by a rule of this module. */
function change(kind: ChangeKind, rule: string, op: Operation, location: string[], what: string, extra: Partial<Change> = {}): Change {
  return { kind, rule, operation: op.key, location, where: `${op.key}${location.length ? ` ${location.join('/')}` : ''}`, what, pointer: opPointer(op, ...location), event: 'modified', ...extra };
}

/** The path `op` of `doc` is served at from the service's root: its server's path (`{baseUrl}/cl/v1` → `/cl/v1`), then its own. */
function servedPath(doc: Json, op: Operation): string {
  const server = (doc.servers as { url?: string }[] | undefined)?.[0]?.url ?? '';
  return `${server.replace(/^\{baseUrl\}/, '').replace(/^[a-z]+:\/\/[^/]+/, '').replace(/\/$/, '')}${op.path}`;
}

/**
 * The path of the operation `key` of `base` (the release) when it is one of the service's
 * pages for people, which may leave the documents while the server keeps serving it at the
 * same URL outside the contract (src/kernel/servicePages.ts); undefined otherwise, and when
 * `revision` still has it. Narrow on purpose: the operation is public (`security: []`), every
 * successful response has content of page media types only (HTML, scripts, style sheets:
 * nothing a generated client reads), and its path as served is under one of the service's
 * page roots (SERVICE_PAGE_ROOTS). No SDK calls such an operation, so its removal breaks none.
 */
export function leavingServicePage(base: Json, revision: Json, key: string): string | undefined {
  const op = operationsOf(base).find((o) => o.key === key);
  if (!op || op.top !== 'paths' || operationsOf(revision).some((o) => o.key === key)) return undefined;
  const security = op.node.security ?? base.security;
  if (!Array.isArray(security) || security.length !== 0) return undefined;
  const successes = Object.entries((op.node.responses ?? {}) as Json).filter(([status]) => /^2/.test(status));
  const mediaTypes = successes.map(([, raw]) => Object.keys((resolveRef(base, raw)?.content ?? {}) as Json));
  if (!successes.length || mediaTypes.some((types) => !types.length || types.some((t) => !PAGE_MEDIA_TYPES.includes(t)))) return undefined;
  const path = servedPath(base, op);
  return isServicePage(path.replace(/\{[^}]*\}/g, 'x')) ? path : undefined;
}

/** Why a service page (leavingServicePage) may leave the documents, for the changelog. */
export const SERVICE_PAGE_LEFT = (path: string): string =>
  `Left the documents: a page for people (HTML or a file it loads) that no SDK calls, still served at ${path} outside the API contract.`;

/**
 * Changed operationIds and removed or renamed component schemas: every generated SDK
 * renames the method or loses the type, even when the wire is the same. A schema that only
 * service pages leaving the documents used (leavingServicePage) leaves with them.
 */
export function sdkChanges(base: Json, revision: Json): Change[] {
  const changes: Change[] = [];
  for (const [was, now] of pairs(base, revision)) {
    const [before, after] = [was.node.operationId, now.node.operationId];
    if (typeof before === 'string' && before !== after) {
      changes.push(change('breaking', 'operation-id', now, ['operationId'], `operationId changed from '${before}' to '${String(after)}' (every generated SDK renames the method).`, { property: 'operationId' }));
    }
  }
  const schemas = (doc: Json) => Object.keys(((doc.components as Json | undefined)?.schemas ?? {}) as Json);
  const kept = new Set(schemas(revision));
  const used = usages(base);
  for (const name of schemas(base)) {
    if (kept.has(name)) continue;
    const pointer = `#/components/schemas/${name}`;
    const users = used.get(pointer) ?? [];
    if (users.length && users.every((u) => leavingServicePage(base, revision, u.operation))) {
      // Listed under each page that used it: the changelog names operations.
      for (const operation of new Set(users.map((u) => u.operation))) {
        const what = `Takes along the schemas only the service's pages used: \`${name}\``;
        changes.push({ kind: 'additive', where: `${operation} · ${name}`, what, excused: what, rule: 'component-schema', pointer, event: 'removed', component: name, operation, location: [] });
      }
      continue;
    }
    changes.push({ kind: 'breaking', where: pointer.slice(1), what: `Component schema \`${name}\` was removed or renamed (every generated SDK loses the type).`, rule: 'component-schema', pointer, event: 'removed', component: name });
  }
  return changes;
}

/** `{payout_id}` → `{id}`: the path is the same on the wire, but every SDK's `path.payout_id` breaks. */
export function pathParameterRenames(base: Json, revision: Json): Change[] {
  const names = (p: string) => [...p.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  return pairs(base, revision).flatMap(([was, now]) => {
    const [before, after] = [names(was.path), names(now.path)];
    const renamed = before.flatMap((name, i) => (name !== after[i] ? [`\`{${name}}\` to \`{${after[i]}}\``] : []));
    return renamed.length
      ? [change('breaking', 'path-parameter-renamed', now, [], `Path parameter renamed: ${renamed.join(', ')} (every generated SDK's path parameter name changes; the path was \`${was.path}\`).`)]
      : [];
  });
}

/** The headers of each response of `op` (references resolved), by status and header name. */
function responseHeaders(doc: Json, op: Operation): Map<string, Json> {
  const headers = new Map<string, Json>();
  for (const [status, raw] of Object.entries((op.node.responses ?? {}) as Json)) {
    for (const [name, header] of Object.entries((resolveRef(doc, raw)?.headers ?? {}) as Json)) {
      headers.set(`${status} ${name.toLowerCase()}`, { ...resolveRef(doc, header), name, status });
    }
  }
  return headers;
}

/** A required response header made optional: a client that reads it may get nothing. Removals are the tool's (response-header-removed). */
export function responseHeaderChanges(base: Json, revision: Json): Change[] {
  return pairs(base, revision).flatMap(([was, now]) => {
    const after = responseHeaders(revision, now);
    return [...responseHeaders(base, was)].flatMap(([key, header]) => {
      const next = after.get(key);
      if (header.required !== true || !next || next.required === true) return [];
      const location = ['responses', String(header.status), 'headers', String(header.name)];
      return [change('breaking', 'response-header-optional', now, location, `Response header \`${String(header.name)}\` is no longer required (a client that reads it may get nothing).`, { side: 'received', property: 'required' })];
    });
  });
}

/** The deprecation an operation declares, or undefined. */
export function deprecationNote(op: Json | undefined): DeprecationNote | undefined {
  if (!op?.deprecated) return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { at: text(op['x-deprecated-at']), sunset: text(op['x-sunset']), successor: text(op['x-successor']) };
}

/** How a deprecated node's sunset changed: earlier or dropped while deprecated (breaking), or later; undefined when the same. */
function sunsetMove(before: DeprecationNote | undefined, after: DeprecationNote | undefined): { kind: ChangeKind; rule: string; what: string } | undefined {
  if (!before?.sunset || !after) return undefined;
  if (!after.sunset) return { kind: 'breaking', rule: 'sunset-removed', what: `Sunset ${before.sunset} removed while still deprecated (integrators lose the date they plan by).` };
  if (after.sunset < before.sunset) return { kind: 'breaking', rule: 'sunset-earlier', what: `Sunset moved earlier, from ${before.sunset} to ${after.sunset}.` };
  if (after.sunset > before.sunset) return { kind: 'additive', rule: 'sunset-later', what: `Sunset moved later, from ${before.sunset} to ${after.sunset}.` };
  return undefined;
}

/** The least time between a deprecation and its sunset, in days (oasdiff's default deprecation window is 180 for stable APIs; 90 is the least a partner plans a migration in). */
export const MIN_SUNSET_DAYS = 90;

/**
 * Whether a sunset set or moved by this change (`after`, against `before` as released) gives
 * integrators time: a sunset on or before `today`, or fewer than MIN_SUNSET_DAYS after its
 * deprecation, is refused. A sunset already released is not judged again (it may pass).
 */
function sunsetTiming(before: DeprecationNote | undefined, after: DeprecationNote | undefined, today: string): { rule: string; what: string } | undefined {
  if (!after?.sunset || before?.sunset === after.sunset) return undefined;
  if (after.sunset <= today) return { rule: 'sunset-past', what: `Sunset ${after.sunset} is not after today (${today}): a client meets the 410 with no notice.` };
  const days = after.at ? (Date.parse(after.sunset) - Date.parse(after.at)) / 86_400_000 : Number.NaN;
  if (!(days >= MIN_SUNSET_DAYS)) {
    return { rule: 'sunset-too-soon', what: `Sunset ${after.sunset} is ${Number.isNaN(days) ? 'without a deprecation date' : `${days} days after the deprecation (${after.at})`}: at least ${MIN_SUNSET_DAYS} days are given.` };
  }
  return undefined;
}

/** The parameters of an operation (its path item's and its own, resolved), by `in` and name, with their index in the operation's list. */
function parametersOf(doc: Json, op: Operation): Map<string, { node: Json; location: string[] }> {
  const found = new Map<string, { node: Json; location: string[] }>();
  op.itemParameters.forEach((p) => {
    const node = resolveRef(doc, p);
    if (node) found.set(`${String(node.in)} ${String(node.name)}`, { node, location: [] });
  });
  ((op.node.parameters ?? []) as unknown[]).forEach((p, i) => {
    const node = resolveRef(doc, p);
    if (node) found.set(`${String(node.in)} ${String(node.name)}`, { node, location: ['parameters', String(i)] });
  });
  return found;
}

/**
 * Deprecations and sunsets (an API version's are on each operation of its served
 * documents, src/http/versions.ts): a sunset moved earlier, or removed from an operation
 * or parameter still deprecated, breaks the date integrators plan by; a new deprecation,
 * a later sunset and an operation no longer deprecated are additive. The document's own
 * `info.x-sunset`, when it has one, follows the same rule.
 */
export function sunsetChanges(base: Json, revision: Json, today = new Date().toISOString().slice(0, 10)): Change[] {
  const changes: Change[] = [];
  const opsBefore = new Map(pairs(base, revision).map(([was, now]) => [now.key, was]));
  for (const now of operationsOf(revision)) {
    const was = opsBefore.get(now.key);
    const timing = sunsetTiming(deprecationNote(was?.node), deprecationNote(now.node), today);
    if (timing) changes.push(change('breaking', timing.rule, now, ['x-sunset'], timing.what, { property: 'x-sunset' }));
    for (const [key, param] of parametersOf(revision, now)) {
      const old = was ? parametersOf(base, was).get(key) : undefined;
      const t = sunsetTiming(deprecationNote(old?.node), deprecationNote(param.node), today);
      if (t) changes.push(change('breaking', t.rule, now, [...param.location, 'x-sunset'], `${key.replace(' ', ' parameter `')}\`: ${t.what}`, { property: 'x-sunset' }));
    }
  }
  for (const [was, now] of pairs(base, revision)) {
    const [before, after] = [deprecationNote(was.node), deprecationNote(now.node)];
    const moved = sunsetMove(before, after);
    if (after && !before) {
      const successor = operationsOf(revision).find((o) => after.successor && o.node.operationId === after.successor);
      const deprecation = { ...after, ...(successor ? { successorOperation: successor.key } : {}) };
      changes.push(change('additive', 'operation-deprecated', now, ['deprecated'], 'Deprecated.', { deprecation, property: 'deprecated' }));
    } else if (moved) {
      changes.push(change(moved.kind, moved.rule, now, ['x-sunset'], moved.what, { property: 'x-sunset' }));
    } else if (before && !after) {
      changes.push(change('additive', 'operation-undeprecated', now, ['deprecated'], 'No longer deprecated.', { property: 'deprecated' }));
    }
    const params = parametersOf(revision, now);
    for (const [key, param] of parametersOf(base, was)) {
      const next = params.get(key);
      const movedParam = next && sunsetMove(deprecationNote(param.node), deprecationNote(next.node));
      if (movedParam) changes.push(change(movedParam.kind, movedParam.rule, now, [...next.location, 'x-sunset'], `${key.replace(' ', ' parameter `')}\`: ${movedParam.what}`, { property: 'x-sunset' }));
    }
  }
  const sunset = (doc: Json) => at(doc, ['info', 'x-sunset']) as string | undefined;
  const [before, after] = [sunset(base), sunset(revision)];
  if (before && (!after || after < before)) {
    changes.push({ kind: 'breaking', rule: after ? 'sunset-earlier' : 'sunset-removed', where: 'info · x-sunset', what: after ? `The version's sunset moved earlier, from ${before} to ${after}.` : `The version's sunset ${before} removed.`, pointer: '#/info/x-sunset', event: 'modified', property: 'x-sunset' });
  }
  return changes;
}

/** The properties of an operation the sunset rules report (the tool's plain "changed" of them is left out). */
export const DEPRECATION_PROPERTIES = new Set(['deprecated', 'x-deprecated-at', 'x-sunset', 'x-successor']);

/**
 * Whether the enum at `enumPointer` in `doc` is declared open: it is one branch of an
 * `anyOf` (or `oneOf`) beside a string without enum or const (a `maxLength` and a
 * `pattern` such as `^[A-Z][A-Z0-9_]*$` keep the OWASP lint's string rules). Generated
 * clients honour that form: hey-api's zod client builds `z.union([z.enum([…]),
 * z.string().max(…).regex(…)])`, openapi-typescript `'A' | 'B' | string`.
 * `x-extensible-enum` alone is not honoured (hey-api 0.95 builds a closed `z.enum`).
 */
export function isOpenEnum(doc: Json, enumPointer: string): boolean {
  const parts = segments(enumPointer);
  const [combiner] = parts.slice(-3, -2);
  if (parts.at(-1) !== 'enum' || (combiner !== 'anyOf' && combiner !== 'oneOf')) return false;
  const branches = at(doc, parts.slice(0, -2)) as unknown[] | undefined;
  return (branches ?? []).some((raw) => {
    const b = resolveRef(doc, raw);
    return b?.type === 'string' && b.enum === undefined && b.const === undefined;
  });
}

/** Whether the operation `key` of `doc` is past its sunset on `today` (`YYYY-MM-DD`): then it may be removed. */
export function pastSunset(doc: Json, key: string, today: string): string | undefined {
  const op = operationsOf(doc).find((o) => o.key === key);
  const sunset = deprecationNote(op?.node)?.sunset;
  return sunset && today > sunset ? sunset : undefined;
}
