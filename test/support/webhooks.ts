/**
 * A real local webhook receiver (node:http) for the delivery tests, and test secrets.
 * Every request is kept with its raw body and headers and checked with the npm package
 * `standardwebhooks` (the integrator's library) against the endpoint's secret.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** Test secrets start with these bytes, so that test/support/leaks.ts can find them in logs. */
const SECRET_PREFIX = Buffer.from('test-webhook-secre'); // 18 bytes: a stable base64 prefix

/** A Standard Webhooks secret (`whsec_` + base64 of 32 bytes) recognisable in logs. */
export function testSecret(): string {
  return `whsec_${Buffer.concat([SECRET_PREFIX, randomBytes(14)]).toString('base64')}`;
}

/** One request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() on arrival. */
  at: number;
  /** The envelope, parsed. */
  json: any;
}

/** How the receiver answers one request. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Hold the answer until this resolves (a slow receiver). */
  after?: Promise<unknown>;
  /** The response body (default `{}`). */
  body?: string;
}

/** A running receiver: its URL, what it got so far, and its stop. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Waits until `count` requests arrived (or throws after `ms`). */
  waitFor(count: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1; `answer(request, index)` decides each response (default 200 `{}`). */
export async function startReceiver(answer: (r: Received, index: number) => Answer = () => ({ status: 200 })): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { headers: req.headers, body, at: performance.now(), json: JSON.parse(body) };
      const index = received.push(r) - 1;
      const a = answer(r, index);
      if (a.after) await a.after;
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body ?? '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async waitFor(count, ms = 20_000) {
      const until = performance.now() + ms;
      while (received.length < count) {
        if (performance.now() > until) throw new Error(`the receiver got ${received.length} of ${count} deliveries in ${ms} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Verifies a delivery as an integrator would; returns the envelope (throws on a bad signature). */
export function verifyDelivery(secret: string, r: Received): any {
  return new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
}

/**
 * For a describe block: returns a function that starts a receiver (as startReceiver) and
 * registers an `after` hook closing every receiver it started.
 */
export function receiversOfSuite(): (answer?: (r: Received, index: number) => Answer) => Promise<Receiver> {
  const receivers: Receiver[] = [];
  after(async () => {
    for (const r of receivers) await r.close();
  });
  return async (answer) => {
    const r = await startReceiver(answer);
    receivers.push(r);
    return r;
  };
}
