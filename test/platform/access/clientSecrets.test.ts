/**
 * The token endpoint under abuse (a flood of wrong secrets, probing for client ids): wrong secrets cost
 * almost nothing, so a flood of them does not delay a legitimate token request, and
 * an unknown client id is refused after the same work as a known one with a wrong
 * secret, so ids cannot be enumerated by timing. Both failed with the scrypt hashing
 * of earlier versions (a legitimate request waited seconds behind the flood; unknown
 * ids answered about 15 times faster).
 */
import { expect } from 'chai';
import type { RunningService } from '../../../src/server.js';
import { post } from '../../support/client.js';
import { extraServiceHooks } from '../../support/service.js';

const tokenRequest = (client_id: string, client_secret: string) => ({ grant_type: 'client_credentials', client_id, client_secret });

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('auth: the token endpoint under abuse', () => {
  let service: RunningService;
  // No rate limits: the limiter would hide the cost being measured.
  extraServiceHooks({ rateLimitPerMinute: 0, rateLimitPerAddressPerMinute: 0 }, (s) => (service = s));

  it('a flood of 400 wrong secrets does not delay a legitimate token request noticeably', async function () {
    this.timeout(60_000);
    const baseUrl = service.url;
    const quiet = await timed(() => post('/cl/v1/auth/token', tokenRequest('demo-business', 'demo-business-secret'), { baseUrl }));
    const flood = Array.from({ length: 400 }, (_, i) =>
      post('/cl/v1/auth/token', tokenRequest(i % 2 ? 'demo-business' : 'sandbox-platform', `wrong-${i}`), { baseUrl }),
    );
    await new Promise((r) => setTimeout(r, 20)); // the flood is in flight
    let legitimate: { status: number } | undefined;
    const during = await timed(async () => {
      legitimate = await post('/cl/v1/auth/token', tokenRequest('demo-business', 'demo-business-secret'), { baseUrl });
    });
    const refused = await Promise.all(flood);
    expect(legitimate!.status).to.equal(200);
    expect(refused.every((r) => r.status === 401)).to.equal(true);
    expect(during, `quiet ${quiet.toFixed(0)} ms, during the flood ${during.toFixed(0)} ms`).to.be.below(1500);
  });

  it('refuses an unknown client id in the same time as a known one with a wrong secret', async function () {
    this.timeout(60_000);
    const baseUrl = service.url;
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 40; i++) {
      // Interleaved, so that drift in the machine's load hits both alike.
      known.push(await timed(() => post('/cl/v1/auth/token', tokenRequest('demo-business', `wrong-${i}`), { baseUrl })));
      unknown.push(await timed(() => post('/cl/v1/auth/token', tokenRequest(`no-such-client-${i}`, `wrong-${i}`), { baseUrl })));
    }
    const [k, u] = [median(known), median(unknown)];
    expect(Math.abs(k - u), `median known ${k.toFixed(2)} ms, unknown ${u.toFixed(2)} ms`).to.be.below(Math.max(3, 0.5 * Math.min(k, u)));
  });
});
