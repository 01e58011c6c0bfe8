/**
 * Version changes as code (Stripe's model). The newest version is what the documents and
 * the handlers describe; a version change is one breaking change, made in `version`, with
 * what undoes it for the older versions:
 *
 *   document(doc)      the newest document rewritten to the older shape (a copy is given)
 *   request(body)      an older request body brought up to the newer shape
 *   response(body)     a newer response body brought down to the older shape
 *   webhook(payload)   a newer webhook event payload brought down to the older shape
 *
 * `operations` (operationIds) and `events` (event types) say where request/response and
 * webhook transforms apply. A request at version V is brought up through every change made
 * after V, oldest first; a response or payload down through them, newest first.
 */

/** An OpenAPI document (bundled JSON). */
export type OpenApiDocument = Record<string, unknown>;

/** One breaking change and what undoes it for the versions before `version`. */
export interface VersionChange {
  /** The first version with the new shape. */
  version: string;
  /** Short name, e.g. `wallet-name-renamed`. */
  name: string;
  /** What changed, for the changelog's upgrade notes. */
  description: string;
  /** The operationIds whose request and response bodies the transforms rewrite. */
  operations?: readonly string[];
  /** The webhook event types whose payloads `webhook` rewrites. */
  events?: readonly string[];
  document?(doc: OpenApiDocument): OpenApiDocument;
  request?(body: unknown, operationId: string): unknown;
  response?(body: unknown, operationId: string): unknown;
  webhook?(payload: unknown, eventType: string): unknown;
}

/**
 * A list of versions (oldest first) and the changes between them. Throws when a change
 * names a version that is not in the list, or the first one (nothing is older).
 */
export class ApiVersioning {
  constructor(
    readonly versions: readonly string[],
    readonly changes: readonly VersionChange[],
  ) {
    for (const change of changes) {
      const at = versions.indexOf(change.version);
      if (at < 1) throw new Error(`version change ${change.name}: ${change.version} is not a version after the first (${versions.join(', ')})`);
    }
  }

  /** The newest version: the shape of the documents and the handlers. */
  get latest(): string {
    return this.versions[this.versions.length - 1];
  }

  /** The changes made after `version`, oldest first. Throws for an unknown version. */
  private after(version: string): VersionChange[] {
    const at = this.versions.indexOf(version);
    if (at < 0) throw new Error(`unknown API version ${version}`);
    return this.changes.filter((c) => this.versions.indexOf(c.version) > at).sort((a, b) => this.versions.indexOf(a.version) - this.versions.indexOf(b.version));
  }

  /** The newest document `doc` as `version` describes it (a copy when a change applies; `doc` itself otherwise). */
  document<T>(doc: T, version: string): T {
    const changes = this.after(version).filter((c) => c.document).reverse();
    return changes.reduce((d, c) => c.document!(structuredClone(d) as OpenApiDocument) as T, doc);
  }

  /** A request body of `operationId` sent at `version`, in the newest shape. */
  requestUp(operationId: string, body: unknown, version: string): unknown {
    return this.after(version)
      .filter((c) => c.request && c.operations?.includes(operationId))
      .reduce((b, c) => c.request!(b, operationId), body);
  }

  /** A response body of `operationId` (newest shape) as `version` answers it. */
  responseDown(operationId: string, body: unknown, version: string): unknown {
    return this.after(version)
      .reverse()
      .filter((c) => c.response && c.operations?.includes(operationId))
      .reduce((b, c) => c.response!(b, operationId), body);
  }

  /** A webhook event payload of `eventType` (newest shape) as an endpoint at `version` receives it. */
  webhookDown(eventType: string, payload: unknown, version: string): unknown {
    return this.after(version)
      .reverse()
      .filter((c) => c.webhook && c.events?.includes(eventType))
      .reduce((p, c) => c.webhook!(p, eventType), payload);
  }
}
