/**
 * Reading an OpenAPI document (bundled JSON, parsed) for the contract tools: its
 * operations, JSON pointers, and which operations reach each component (a change inside
 * a shared component reaches every operation that uses it).
 */

export type Json = Record<string, unknown>;

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The segments of a JSON pointer (`#/a/b~1c` → ['a', 'b/c']). */
export function segments(pointer: string): string[] {
  return pointer
    .replace(/^#?\/?/, '')
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s).replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** A JSON pointer of `parts` (`['paths', '/a/{b}']` → `#/paths/~1a~1{b}`). */
export function pointerOf(parts: string[]): string {
  return `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

/** The node at `pointer` in `doc`, or undefined. */
export function at(doc: Json | undefined, pointer: string | string[]): unknown {
  const parts = typeof pointer === 'string' ? segments(pointer) : pointer;
  return parts.reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc);
}

/** The node `value` refers to (`$ref` inside `doc`, followed until it is not a reference), else `value`. */
export function resolveRef(doc: Json | undefined, value: unknown): Json | undefined {
  let node = value as Json | undefined;
  for (let hops = 0; typeof node?.$ref === 'string' && hops < 20; hops++) node = at(doc, node.$ref) as Json | undefined;
  return node;
}

/** One operation of a document: under `paths`, or a webhook (whose request the client receives). */
export interface Operation {
  /** `GET /payouts/{payout_id}`, or `webhook payout.pending POST`. */
  key: string;
  top: 'paths' | 'webhooks';
  path: string;
  method: string;
  node: Json;
  /** The path item's parameters (shared by its operations). */
  itemParameters: unknown[];
}

/** The key of the operation `method` of `path` (see Operation.key). */
export function operationKey(top: string, path: string, method: string): string {
  return top === 'webhooks' ? `webhook ${path} ${method.toUpperCase()}` : `${method.toUpperCase()} ${path}`;
}

/** Every operation of `doc`, paths first, in document order. */
export function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const top of ['paths', 'webhooks'] as const) {
    for (const [p, raw] of Object.entries((doc[top] ?? {}) as Record<string, Json>)) {
      const item = resolveRef(doc, raw) ?? {};
      for (const method of METHODS) {
        const node = item[method] as Json | undefined;
        if (node) ops.push({ key: operationKey(top, p, method), top, path: p, method, node, itemParameters: (item.parameters ?? []) as unknown[] });
      }
    }
  }
  return ops;
}

/**
 * Which side of the wire a part of an operation is on, for its client: `sent` (request
 * parameters and body of a path operation) or `received` (its responses; a webhook's
 * request body, which the client's endpoint receives).
 */
export type Side = 'sent' | 'received';

export function sideOf(top: string, part: string | undefined): Side | undefined {
  if (part === 'responses') return 'received';
  if (part === 'requestBody') return top === 'webhooks' ? 'received' : 'sent';
  if (part === 'parameters') return 'sent';
  return undefined;
}

/** An operation that reaches a component, on which side, and where (`via`: segments under the operation, references inlined). */
export interface Usage {
  operation: string;
  side: Side;
  via: string[];
}

/**
 * The component (`#/components/<type>/<name>`) a pointer lies in, or undefined when it
 * lies elsewhere.
 */
export function componentOf(pointer: string): string | undefined {
  const [top, type, name] = segments(pointer);
  return top === 'components' && type && name ? pointerOf([top, type, name]) : undefined;
}

/**
 * The operations that reach each component of `doc`, directly or through other
 * components, with the side; keyed by the component's pointer (componentOf).
 */
export function usages(doc: Json): Map<string, Usage[]> {
  const found = new Map<string, Usage[]>();
  const walk = (node: unknown, operation: string, side: Side, via: string[], seen: Set<string>): void => {
    if (!node || typeof node !== 'object') return;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/')) {
      const component = componentOf(ref);
      if (component && !seen.has(ref)) {
        seen.add(ref);
        const list = found.get(component) ?? [];
        if (!list.some((u) => u.operation === operation && u.side === side)) list.push({ operation, side, via });
        found.set(component, list);
        walk(at(doc, ref), operation, side, via, seen);
      }
    }
    for (const [key, value] of Object.entries(node as Json)) walk(value, operation, side, [...via, key], seen);
  };
  for (const op of operationsOf(doc)) {
    const parameters = [...op.itemParameters, ...((op.node.parameters ?? []) as unknown[])];
    for (const part of ['parameters', 'requestBody', 'responses']) {
      walk(part === 'parameters' ? parameters : op.node[part], op.key, sideOf(op.top, part)!, [part], new Set());
    }
  }
  return found;
}
