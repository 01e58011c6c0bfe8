/**
 * How the sandbox providers deliver their results: through the service's real,
 * signed callback operation, by HTTP to the service itself, right after the
 * transaction of the request that asked for the result has committed and before
 * that request is answered ("synchronously after commit"). So when a sandbox
 * request that starts a check is answered, the check's result has already been
 * applied; and every delivery goes through signature, replay and state checks
 * like a real provider's. A delivery is made once; a failure is logged (path
 * and status only) and leaves the session waiting, as a lost callback would.
 */
import { randomUUID } from 'node:crypto';
import { signCallback, SIGNATURE_HEADER } from './signatures.js';

/** A result to send once the caller's transaction has committed; `baseUrl` is the service's own. */
export type Delivery = (baseUrl: string) => Promise<void>;

/** A fresh provider event id. */
export const newEventId = (): string => `evt_${randomUUID().replaceAll('-', '')}`;

/** POSTs `payload` to `baseUrl + path`, signed with `secret`. Never throws. */
export async function deliverSignedCallback(baseUrl: string, path: string, payload: object, secret: Buffer): Promise<void> {
  const body = JSON.stringify(payload);
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signCallback(secret, body) },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    await res.arrayBuffer();
    if (!res.ok) console.warn(`sandbox callback ${path} answered ${res.status}`);
  } catch (err) {
    console.warn(`sandbox callback ${path} failed: ${(err as Error).name}`);
  }
}
