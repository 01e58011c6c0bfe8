/**
 * Every operation of a bundled document, ready to call: its path filled from
 * the parameters' examples (a random UUID where none is given) and its request
 * example as the body. Used by the document-driven tests.
 */
import { randomUUID } from 'node:crypto';
import { loadBundledDocument } from '../../src/http/openapi.js';

export interface DocumentedOperation {
  operationId: string;
  summary: string;
  method: string;
  /** Full request path: `prefix` + the document's path with examples filled in. */
  path: string;
  secured: boolean;
  statuses: string[];
  body?: unknown;
}

/** The operations of document `name`, whose paths are served under `prefix`. */
export function documentedOperations(name: 'closed-loop' | 'core', prefix: string): DocumentedOperation[] {
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
        secured: security.length > 0,
        statuses: Object.keys(op.responses),
        body,
      });
    }
  }
  return out;
}
