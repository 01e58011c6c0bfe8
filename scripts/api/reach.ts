/**
 * The reach of a version change (src/kernel/versioning/): the operations and webhook events
 * whose bodies its `document` rewrite changes. A change must name every one of them in its
 * `operations` and `events`, or the edge leaves a body in the newest shape for a client of an
 * older version (`npm run api:diff` fails, naming them).
 *
 * Bodies are what the edge rewrites: an operation's request body, each success and error
 * response's body (and its status), and a webhook's payload. Parameters and headers are not:
 * the edge sets `X-API-Version` itself, and a header's name is matched without case.
 */
import type { VersionChange } from '../../src/kernel/versioning/versionChange.js';
import { METHODS, operationsOf, resolveRef, type Json } from './document.js';

/** Words for people inside a schema: they change no body on the wire. */
const PROSE = new Set(['description', 'summary', 'title', 'example', 'examples']);

/** `value` with every `$ref` inside `doc` replaced by what it names (a cycle is left as its `$ref`), its prose left out. */
function inlined(doc: Json, value: unknown, seen: ReadonlySet<string> = new Set(), names = false): unknown {
  if (Array.isArray(value)) return value.map((v) => inlined(doc, v, seen));
  if (!value || typeof value !== 'object') return value;
  const ref = (value as Json).$ref;
  if (typeof ref === 'string') {
    if (seen.has(ref)) return { $ref: ref };
    return inlined(doc, resolveRef(doc, { $ref: ref }), new Set([...seen, ref]));
  }
  // Under `properties` the keys are field names (a field may be called `description`).
  return Object.fromEntries(
    Object.entries(value as Json)
      .filter(([k]) => names || !PROSE.has(k))
      .map(([k, v]) => [k, inlined(doc, v, seen, !names && k === 'properties')]),
  );
}

/** What the bodies of each operation (by `METHOD /path`) and webhook (by `webhook <event>`) are, as comparable text, with each one's operationId. */
function bodiesOf(doc: Json): Map<string, { operationId: string; bodies: string }> {
  const bodies = new Map<string, { operationId: string; bodies: string }>();
  for (const op of operationsOf(doc)) {
    if (!METHODS.includes(op.method)) continue;
    const content = (node: unknown) => (resolveRef(doc, node)?.content as Json | undefined) ?? {};
    const request = Object.fromEntries(Object.entries(content(op.node.requestBody)).map(([type, media]) => [type, inlined(doc, (media as Json).schema)]));
    const responses = Object.fromEntries(
      Object.entries((op.node.responses ?? {}) as Json).map(([status, response]) => [
        status,
        Object.fromEntries(Object.entries(content(response)).map(([type, media]) => [type, inlined(doc, (media as Json).schema)])),
      ]),
    );
    const key = op.top === 'webhooks' ? `webhook ${op.path}` : `${op.method.toUpperCase()} ${op.path}`;
    bodies.set(key, { operationId: String(op.node.operationId ?? ''), bodies: JSON.stringify({ request, responses }) });
  }
  return bodies;
}

/** The operations (newest operationIds) and events whose bodies `change`'s document rewrite reaches in `newest`, and those it does not name. */
export function uncoveredReach(newest: Json, change: VersionChange): { operations: string[]; events: string[] } {
  if (!change.document) return { operations: [], events: [] };
  const before = bodiesOf(newest);
  const after = bodiesOf(change.document(structuredClone(newest)) as Json);
  const operations: string[] = [];
  const events: string[] = [];
  for (const [key, { operationId, bodies }] of before) {
    if (after.get(key)?.bodies === bodies) continue;
    if (key.startsWith('webhook ')) {
      const event = key.slice('webhook '.length);
      if (!change.events?.includes(event)) events.push(event);
    } else if (!change.operations?.includes(operationId)) {
      operations.push(operationId);
    }
  }
  return { operations, events };
}
