/**
 * Where a change is, for people and for the gate: the operations it reaches (a change in
 * a shared component at each operation using it, with the path from the operation to
 * it), an added or removed path item, parameter list or header map as one change per
 * operation, parameter or header, and the gate's judgement beyond `redocly diff`'s
 * (rules.ts). Used by scripts/apiContract.ts compareDocuments.
 */
import { at, componentOf, METHODS, operationKey, operationsOf, pointerOf, resolveRef, segments, sideOf, type Json, type Usage } from './document.js';
import { deprecationNote, isOpenEnum, leavingServicePage, pastSunset, SERVICE_PAGE_LEFT, type Change } from './rules.js';

/** What the tool says happened to a node. */
export type DiffKind = 'added' | 'removed' | 'modified';

/**
 * Where a pointer is, for people: `POST /webhooks requestBody/content/…` under an operation
 * (`GET /events parameters/6 (query \`status\`)` when `doc` names the parameter), `webhook
 * payout.pending POST …` under a webhook, else the pointer.
 */
export function describePointer(pointer: string, property?: string, doc?: Json): string {
  const [top, p, method, ...rest] = segments(pointer);
  let where = pointer.replace(/^#/, '') || '/';
  if ((top === 'paths' || top === 'webhooks') && p !== undefined && method && METHODS.includes(method)) {
    if (rest[0] === 'parameters' && rest[1] !== undefined) {
      const params = (at(doc, [top, p, method, 'parameters']) ?? []) as unknown[];
      const param = resolveRef(doc, params[Number(rest[1])]);
      if (param && typeof param.name === 'string') rest[1] = `${rest[1]} (${String(param.in)} \`${param.name}\`)`;
    }
    where = `${operationKey(top, p, method)}${rest.length ? ` ${rest.join('/')}` : ''}`;
  } else if (top === 'paths' && p !== undefined) where = `${p}${method ? ` ${[method, ...rest].join('/')}` : ''}`;
  return property ? `${where} · ${property}` : where;
}

/**
 * `change` (the tool's `diffKind` of it) as the changelog names it: an added or removed
 * path item becomes one change per operation it holds, and an added or removed operation
 * says its operationId, so that each entry names the method and path a client calls (and
 * the SDK method). Any other change is returned as it is.
 */
export function perOperation(change: Change, diffKind: DiffKind, base: Json, revision: Json): Change[] {
  const [top, p, method, ...rest] = segments(change.pointer);
  if ((top !== 'paths' && top !== 'webhooks') || p === undefined || rest.length > 0 || diffKind === 'modified') return [change];
  if (method !== undefined && !METHODS.includes(method)) return [change];
  const doc = diffKind === 'removed' ? base : revision;
  const item = at(doc, [top, p]) as Json | undefined;
  const methods = method !== undefined ? [method] : METHODS.filter((m) => item?.[m]);
  return methods.map((m) => {
    const operationId = at(doc, [top, p, m, 'operationId']);
    const what = `Operation ${diffKind}${typeof operationId === 'string' ? ` (operationId \`${operationId}\`)` : ''}${method === undefined ? `, with its path` : ''}.`;
    const key = operationKey(top, p, m);
    return { ...change, where: key, what, pointer: pointerOf([top, p, m]), operation: key, location: [], event: diffKind, ...(typeof operationId === 'string' ? { operationId } : {}) };
  });
}

/**
 * `change` at every operation it reaches: one where the tool found it (its location
 * under the operation), or, for a change inside a component, one per operation of `doc`
 * that uses the component, with the side it is on. A change no operation reaches (a new
 * component, `info`) is returned alone.
 */
export function atOperations(change: Change, toolPath: string, doc: Json, reach: Map<string, Usage[]>, released: Set<string>): Change[] {
  const component = componentOf(change.pointer);
  if (component && change.kind === 'documentation') return [change]; // counted as the component's
  // An operation new in the revision is listed as new, not with each part of it.
  const users = component ? reach.get(component)?.filter((u) => released.has(sameOperation(u.operation))) : undefined;
  if (users?.length) {
    const [, , name, ...inside] = segments(change.pointer);
    return users.map((u) => ({ ...change, operation: u.operation, side: u.side, component: name, location: [...u.via, ...inside], where: `${u.operation} · ${[name, ...inside].join('/')}${change.property && change.property !== inside.at(-1) ? ` · ${change.property}` : ''}` }));
  }
  const [top, p, method, ...rest] = segments(toolPath);
  if ((top !== 'paths' && top !== 'webhooks') || !METHODS.includes(method ?? '')) return [change];
  const name = component ? segments(change.pointer)[2] : undefined;
  return [{ ...change, operation: change.operation ?? operationKey(top, p, method), location: change.location ?? rest, side: sideOf(top, rest[0]), ...(name && !change.component ? { component: name } : {}) }];
}

/** An operation key up to its path parameters' names (`GET /a/{}`), to find it in the release after a rename. */
export const sameOperation = (key: string): string => key.replace(/\{[^}]*\}/g, '{}');

/**
 * An added or removed list of parameters or map of response headers as one change per
 * parameter or header (the changelog names each).
 */
export function perItem(change: Change, doc: Json): Change[] {
  const loc = change.location ?? [];
  const list = (loc.length === 1 && loc[0] === 'parameters') || (loc.length === 3 && loc[0] === 'responses' && loc[2] === 'headers');
  const node = at(doc, change.pointer);
  if (change.event === 'modified' || !list || !node || typeof node !== 'object') return [change];
  return Object.keys(node).map((key) => ({ ...change, pointer: `${change.pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, location: [...loc, key], where: `${change.where}/${key}` }));
}

/**
 * `change` with what the changelog says of an added or removed parameter or field: the
 * parameter's name and place, and whether it is required (in `doc`, the revision for an
 * addition, the release for a removal).
 */
export function withDetail(change: Change, doc: Json): Change {
  const parts = segments(change.pointer);
  if (change.event === 'modified') return change;
  const [top, , , ...rest] = parts;
  if ((top === 'paths' || top === 'webhooks') && rest[0] === 'parameters' && rest.length === 2) {
    const param = resolveRef(doc, at(doc, parts));
    if (param && typeof param.name === 'string') return { ...change, parameter: `${String(param.in)} parameter \`${param.name}\``, required: param.required === true };
  }
  if (parts.at(-2) === 'properties') {
    const parent = at(doc, parts.slice(0, -2)) as Json | undefined;
    return { ...change, required: Array.isArray(parent?.required) && parent.required.includes(parts.at(-1)) };
  }
  return change;
}

/**
 * The gate's judgement of a change at an operation, beyond the tool's: a new value of an
 * enum the client receives breaks it unless the enum is declared open (rules.ts
 * isOpenEnum); removing an operation after its sunset is allowed, and so is removing one of
 * the service's pages for people (rules.ts leavingServicePage).
 */
export function judge(change: Change, base: Json, revision: Json, today: string): Change {
  if (change.rule === 'enum-values-added' && change.side === 'received' && !isOpenEnum(revision, change.pointer)) {
    return { ...change, kind: 'breaking', what: `${change.what} A client that checks the values it receives rejects the new one: declare the enum open (anyOf with a plain string, openapi/DESIGN.md "Open response enums") before adding values.` };
  }
  if (change.kind === 'breaking' && change.event === 'removed' && change.operation && change.location?.length === 0) {
    const page = leavingServicePage(base, revision, change.operation);
    if (page) return { ...change, kind: 'additive', excused: SERVICE_PAGE_LEFT(page) };
    const sunset = pastSunset(base, change.operation, today);
    if (sunset) return { ...change, kind: 'additive', excused: `Removed after its sunset, ${sunset}.` };
    const planned = deprecationNote(operationsOf(base).find((o) => o.key === change.operation)?.node)?.sunset;
    if (planned) return { ...change, what: `${change.what} Its sunset is ${planned}: it may be removed after that date, not before.` };
  }
  return change;
}
