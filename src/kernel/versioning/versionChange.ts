/**
 * Version changes as code (Stripe's model). The newest version is what the documents and
 * the handlers describe; a version change is one breaking change, made in `version`, with
 * what undoes it for the older versions:
 *
 *   document(doc)      the newest document rewritten to the older shape (a copy is given)
 *   request(body)      an older request body brought up to the newer shape
 *   response(body)     a newer response body brought down to the older shape
 *   status(status)     a newer success status brought down to the older one (e.g. 201 to 200)
 *   webhook(data)      a newer event's `data` brought down to the older shape
 *   webhookUp(data)    an older event's `data` (stored before the change) brought up
 *
 * `operations` (the newest operationIds) and `events` (event types) say where the request,
 * response and event transforms apply; they must name every operation and event whose
 * bodies the document change reaches (`npm run api:diff` checks it). A request at version V
 * is brought up through every change made after V, oldest first; a response or an event
 * down through them, newest first. An event is stored with the version whose shape its
 * `data` has, and brought up from there before it is brought down (eventData).
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
  /** OperationIds this change renames, newest → before (the document transform renames them back). */
  operationIds?: Readonly<Record<string, string>>;
  document?(doc: OpenApiDocument): OpenApiDocument;
  request?(body: unknown, operationId: string): unknown;
  response?(body: unknown, operationId: string): unknown;
  status?(status: number, operationId: string): number;
  webhook?(data: unknown, eventType: string): unknown;
  webhookUp?(data: unknown, eventType: string): unknown;
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

  /**
   * The operationId `operationId` (newest) had in the first version: what an Idempotency-Key's
   * request fingerprint names, so that a key kept before a rename still matches its request.
   */
  originalOperationId(operationId: string): string {
    return [...this.changes].reverse().reduce((id, c) => c.operationIds?.[id] ?? id, operationId);
  }

  /** The changes made after `version`, oldest first: what a request of `version` is brought up through. Throws for an unknown version. */
  changedAfter(version: string): VersionChange[] {
    return this.after(version);
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

  /** A success status of `operationId` (the newest version's) as `version` answers it. */
  statusDown(operationId: string, status: number, version: string): number {
    return this.after(version)
      .reverse()
      .filter((c) => c.status && c.operations?.includes(operationId))
      .reduce((s, c) => c.status!(s, operationId), status);
  }

  /** An event's `data` of `eventType` (newest shape) as an endpoint or a request at `version` receives it. */
  webhookDown(eventType: string, data: unknown, version: string): unknown {
    return this.after(version)
      .reverse()
      .filter((c) => c.webhook && c.events?.includes(eventType))
      .reduce((p, c) => c.webhook!(p, eventType), data);
  }

  /**
   * An event's `data` of `eventType`, stored in `stored`'s shape, as `version` receives it:
   * brought up through the changes made after `stored` (webhookUp), then down to `version`.
   * Throws for an unknown version, and when a change that reshapes the event cannot bring
   * it up (it has no webhookUp).
   */
  eventData(eventType: string, data: unknown, stored: string, version: string): unknown {
    const up = this.after(stored).filter((c) => c.events?.includes(eventType) && (c.webhook || c.webhookUp));
    const newest = up.reduce((d, c) => {
      if (!c.webhookUp) throw new Error(`version change ${c.name} reshapes ${eventType} but cannot bring an event stored at ${stored} up`);
      return c.webhookUp(d, eventType);
    }, data);
    return this.webhookDown(eventType, newest, version);
  }
}
