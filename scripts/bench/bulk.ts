/**
 * The bulk-payout scenarios of `npm run bench`: a business pays its customers
 * through bulk payouts of 1,000 items on the sandbox rail with no processing delay
 * (PAYOUT_PROCESSING_MS=0, set by bench.ts), and a local webhook receiver subscribed to the
 * payout events counts their deliveries. Measured from the request: the bulk payout created
 * (its 200), every payout COMPLETED (polling the bulk payout's counts), every event
 * (payout.pending, payout.processing, payout.completed: 3 per item) delivered.
 *
 * The customers are onboarded through the public API as an integrator would (start, the
 * code from the sandbox's SMS, identity, information); items name them by customer id,
 * several items per customer.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { validInformation } from '../../test/support/kyc.js';

const PAYOUT_EVENTS = ['payout.pending', 'payout.processing', 'payout.completed', 'payout.failed'];

async function call(base: string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An ACTIVE customer of the business, onboarded through the core API's sandbox flow. */
async function onboard(base: string, token: string): Promise<string> {
  const mobile = `9665${String(10_000_000 + Math.floor(Math.random() * 89_999_999))}`;
  const session = await call(base, 'POST', '/onboarding/sessions', token, { mobile_number: mobile, locale: 'en' });
  const sms = await call(base, 'GET', `/testhelpers/sms-messages?mobile_number=${mobile}&limit=1`, token);
  const otp = /\b[0-9]{6}\b/.exec(sms.data[0].text)![0];
  await call(base, 'POST', `/onboarding/sessions/${session.session_id}/verify-otp`, token, { otp });
  const nationalId = `1${String(100_000_000 + Math.floor(Math.random() * 899_999_999))}`;
  const screened = await call(base, 'POST', `/onboarding/sessions/${session.session_id}/identity-verification`, token, { national_id: nationalId, date_of_birth: '1990-04-15' });
  await call(base, 'POST', '/onboarding/complete-customer-information', token, validInformation(screened.customer_id));
  return screened.customer_id;
}

/**
 * The local webhook receiver (scripts/bench/receiver.mjs) in a process of its own: it answers
 * 204 and counts the distinct events delivered. `total` is its latest count, read every 50 ms.
 */
class Receiver {
  total = 0;
  private readonly timer: NodeJS.Timeout;
  private constructor(
    private readonly child: ChildProcess,
    private readonly port: number,
  ) {
    this.timer = setInterval(() => {
      fetch(`http://127.0.0.1:${port}/count`).then(
        async (res) => (this.total = Number(await res.text())),
        () => undefined,
      );
    }, 50);
  }

  static async start(): Promise<Receiver> {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./receiver.mjs', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.once('data', (line: Buffer) => resolve(Number(line.toString().trim())));
      child.once('exit', (code) => reject(new Error(`webhook receiver exited (${code})`)));
    });
    return new Receiver(child, port);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    await exited;
  }
}

/** The kinds of dead webhook endpoint the isolation scenarios put beside the healthy receiver. */
export type DeadKind = 'unresolvable host' | 'refused connection' | 'no answer';

/**
 * A webhook endpoint that never takes a delivery, on loopback only: a name under
 * `.invalid` (RFC 6761: never resolves), a loopback port nobody listens on (the
 * connection is refused), or a local TCP server that accepts and never answers (every
 * attempt lasts until the service's time-out).
 */
class DeadEndpoint {
  private constructor(
    readonly url: string,
    private readonly server?: Server,
    private readonly sockets: Set<Socket> = new Set(),
  ) {}

  static async start(kind: DeadKind): Promise<DeadEndpoint> {
    if (kind === 'unresolvable host') return new DeadEndpoint(`https://dead-${randomUUID().slice(0, 8)}.invalid/hooks`);
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.resume(); // reads the request, never answers
    });
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    if (kind === 'no answer') return new DeadEndpoint(`http://127.0.0.1:${port}/hooks`, server, sockets);
    await new Promise((resolve) => server.close(resolve)); // the port is free again: a connection to it is refused
    return new DeadEndpoint(`http://127.0.0.1:${port}/hooks`);
  }

  async close(): Promise<void> {
    if (!this.server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}

/** The token of a new business of the sandbox platform, its payout account topped up, and `n` ACTIVE customers of it. */
async function newBusiness(base: string, name: string, n: number): Promise<{ token: string; customers: string[] }> {
  const grant = { grant_type: 'client_credentials' };
  const platform = (await call(base, 'POST', '/cl/v1/auth/token', '', { ...grant, client_id: 'sandbox-platform', client_secret: 'sandbox-platform-secret' })).access_token;
  const business = await call(base, 'POST', '/cl/v1/businesses', platform, { name: `${name} ${Date.now()}` });
  const token = (await call(base, 'POST', '/cl/v1/auth/token', '', { ...grant, ...business.credentials })).access_token;
  await call(base, 'POST', '/testhelpers/payout-account/topups', token, { amount: '100000000.00' });
  const customers: string[] = [];
  for (let i = 0; i < n; i++) customers.push(await onboard(base, token));
  return { token, customers };
}

/** Registers `url` as a webhook endpoint of the business for the payout events; resolves to its id (from the list: the creation answers `{}`). */
async function registerEndpoint(base: string, token: string, url: string): Promise<string> {
  await call(base, 'POST', '/cl/v1/webhooks/endpoints', token, { url, secret: `whsec_${randomBytes(32).toString('base64')}`, events: PAYOUT_EVENTS });
  const listed: { id: string; url: string }[] = (await call(base, 'GET', '/cl/v1/webhooks/endpoints?limit=100', token)).data;
  return listed.find((e) => e.url === url)!.id;
}

/** A bulk payout's body of `items` items paying `customers` in turn. */
const bulkBody = (items: number, customers: string[]) => ({
  items: Array.from({ length: items }, (_, i) => ({ payout_amount: `${1 + (i % 9)}.0${i % 10}`, customer_id: customers[i % customers.length] })),
});

/** Items of the other business's bulk payout in the isolation scenarios (its events go to its dead endpoint only). */
const OTHER_BUSINESS_ITEMS = 100;

/**
 * Seconds from `t0` until `done()` holds (checked every `everyMs`), or Infinity after `limitS`.
 * Reading ten bulk payouts' counts costs the service about 3 ms of database time each, so
 * the completion is polled every 200 ms (its resolution), not as fast as the event count.
 */
async function secondsUntil(t0: number, limitS: number, done: () => Promise<boolean> | boolean, everyMs = 50): Promise<number> {
  while (!(await done())) {
    if ((performance.now() - t0) / 1000 > limitS) return Infinity;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return (performance.now() - t0) / 1000;
}

/** What one bulk scenario measured, in seconds from the first request. */
export interface BulkResult {
  payouts: number;
  created: number;
  completed: number;
  delivered: number;
}

/** Something run beside the bulk payouts: started just before their first request, stopped once every event is delivered. */
export interface Alongside {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Runs `bulks` bulk payouts of `items` items each at once against the service at `base`,
 * as a new business with its own customers and webhook endpoint. Gives up on a stage after
 * `limitS` seconds (that stage is then Infinity). `alongside` runs over the bulk payouts'
 * whole course (the bench's other traffic). With `dead`, a dead endpoint of that kind
 * (DeadEndpoint) is registered beside the receiver for the same events, and another
 * business with one of its own sends a bulk payout of OTHER_BUSINESS_ITEMS items at the
 * same time: the receiver's deliveries are timed as without them.
 */
export async function runBulkScenario(base: string, bulks: number, items: number, limitS = 120, alongside?: Alongside, dead?: DeadKind): Promise<BulkResult> {
  const { token, customers } = await newBusiness(base, 'Bulk bench', 20);
  const receiver = await Receiver.start();
  // Isolation: a dead endpoint of the same business beside the receiver, subscribed to the
  // same events, and another business with a dead endpoint sending a bulk payout too.
  const deadEndpoints: { endpoint: DeadEndpoint; owner: string; id: string }[] = [];
  let other: { token: string; customers: string[] } | undefined;
  try {
    await registerEndpoint(base, token, receiver.url);
    if (dead) {
      other = await newBusiness(base, 'Bulk bench, other business', 2);
      for (const owner of [token, other.token]) {
        const endpoint = await DeadEndpoint.start(dead);
        deadEndpoints.push({ endpoint, owner, id: await registerEndpoint(base, owner, endpoint.url) });
      }
    }
    alongside?.start();
    const t0 = performance.now();
    const otherBulk = other && call(base, 'POST', '/bulk-payouts', other.token, bulkBody(OTHER_BUSINESS_ITEMS, other.customers), { 'idempotency-key': randomUUID() });
    const ids = await Promise.all(
      Array.from({ length: bulks }, async () => (await call(base, 'POST', '/bulk-payouts', token, bulkBody(items, customers), { 'idempotency-key': randomUUID() })).bulk_payout_id as string),
    );
    await otherBulk;
    const created = (performance.now() - t0) / 1000;
    const total = bulks * items;
    const completed = await secondsUntil(t0, limitS, async () => {
      const views = await Promise.all(ids.map((id) => call(base, 'GET', `/bulk-payouts/${id}`, token)));
      return views.reduce((n, v) => n + v.counts.COMPLETED, 0) >= total;
    }, 200);
    const delivered = await secondsUntil(t0, limitS, () => receiver.total >= 3 * total);
    await alongside?.stop();
    return { payouts: total, created, completed, delivered };
  } finally {
    await receiver.close();
    // The integrator's step once the scenario is over: a dead endpoint is deleted, which
    // cancels its pending deliveries as they come due. Left registered, their retries (the
    // third attempts, five minutes on: about 10,000 for the three cases) would fall on the
    // scenarios that follow, which would then measure them.
    for (const { endpoint, owner, id } of deadEndpoints) {
      await call(base, 'DELETE', `/cl/v1/webhooks/endpoints/${id}`, owner);
      await endpoint.close();
    }
  }
}
