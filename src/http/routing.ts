/**
 * The routing table of one API document, built once at start-up from the
 * operations openapi-backend reads from it; each request is then matched with
 * one Map lookup (paths without parameters) or a few precompiled regular
 * expressions, instead of openapi-backend 5.20's router, which rebuilds the
 * operation list (lodash) and compiles a RegExp per path on every request.
 *
 * Matching follows openapi-backend's router exactly, so that routing does not
 * change: paths are relative to the API root, trailing slashes are ignored; an
 * operation whose path is the request path and whose method is the request's
 * wins; otherwise the operations whose path template matches are ordered by
 * specificity (length of the path without its `{parameters}`, longest first,
 * document order on ties) and the first with the request's method wins; a path
 * that some operation matches but not with this method is 405, none is 404.
 * Path parameters are percent-decoded; a malformed escape is 400 VALIDATION_ERROR.
 */
import type { ApiOperation } from './apiTypes.js';
import { invalidField } from '../kernel/errors.js';

/** A request matched to its operation, with its path parameters (decoded). */
export interface RouteMatch {
  operation: ApiOperation;
  params: Record<string, string>;
}

interface Template {
  pattern: RegExp;
  names: string[];
  specificity: number;
  byMethod: Map<string, ApiOperation>;
}

const escape = (literal: string) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&');

/**
 * The routing table of one API document (see the module comment): built once from its
 * operations, then `match`es each request's method and path to an operation.
 */
export class RoutingTable {
  /** Exact relative path → method → operation. */
  private readonly exact = new Map<string, Map<string, ApiOperation>>();
  /** Every path (with or without parameters) by specificity, longest first. */
  private readonly templates: Template[] = [];
  private readonly rootPattern: RegExp;

  /** `operations` as openapi-backend lists them (getOperations), mounted at `apiRoot`. */
  constructor(operations: ApiOperation[], private readonly apiRoot: string) {
    this.rootPattern = new RegExp(`^${escape(apiRoot)}/?`);
    const byPath = new Map<string, Template>();
    for (const op of operations) {
      // A documented trailing slash (seed E4's `/payouts/`) is ignored like a requested one.
      const path = op.path.length > 1 ? op.path.replace(/\/+$/, '') : op.path;
      let template = byPath.get(path);
      if (!template) {
        const names = [...path.matchAll(/\{(.*?)\}/g)].map((m) => m[1]);
        const source = path.split(/\{.*?\}/).map(escape).join('([^/]+)');
        template = { pattern: new RegExp(`^${source}$`), names, specificity: path.replace(/\{.*?\}/g, '').length, byMethod: new Map() };
        byPath.set(path, template);
        this.templates.push(template);
        this.exact.set(path, template.byMethod);
      }
      if (!template.byMethod.has(op.method)) template.byMethod.set(op.method, op);
    }
    this.templates.sort((a, b) => b.specificity - a.specificity); // stable: document order on ties
  }

  /** Path relative to the API root, without trailing slashes (openapi-backend's normalisation). */
  private relative(path: string): string {
    let rel = path.startsWith(this.apiRoot) ? path.replace(this.rootPattern, '/') : path;
    while (rel.length > 1 && rel.endsWith('/')) rel = rel.slice(0, -1);
    return rel;
  }

  /**
   * The operation for `method` (any case) and `path`; 404 when no operation has
   * the path; when some have it but not with this method (405), the methods
   * they have (lower case, document order).
   */
  match(method: string, path: string): RouteMatch | 404 | string[] {
    const absolute = path.startsWith('/') ? path : `/${path}`;
    if (!absolute.startsWith(this.apiRoot)) return 404;
    const rel = this.relative(absolute);
    const verb = method.toLowerCase();
    const exact = this.exact.get(rel)?.get(verb);
    if (exact) return { operation: exact, params: {} };
    const allowed = new Set<string>();
    for (const t of this.templates) {
      const m = t.pattern.exec(rel);
      if (!m) continue;
      const operation = t.byMethod.get(verb);
      if (operation) return { operation, params: decodeParams(t.names, m) };
      for (const other of t.byMethod.keys()) allowed.add(other);
    }
    return allowed.size ? [...allowed] : 404;
  }
}

function decodeParams(names: string[], m: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    try {
      params[name] = decodeURIComponent(m[i + 1]);
    } catch {
      throw invalidField(`/path/${name}`, 'is not valid percent-encoding');
    }
  });
  return params;
}
