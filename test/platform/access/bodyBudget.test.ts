/**
 * Load shedding for request bodies (src/http/bodyBudget.ts): while request bodies
 * declaring 16 MiB in all (at most) are being read, one more body is answered 503
 * SERVICE_UNAVAILABLE with `Retry-After` (as every operation with a body documents), and
 * nothing is read of it; a request without a body still goes through; once those bodies
 * are answered, bodies are taken again. Requests whose bodies arrive slowly hold their
 * bytes here, as a burst of large uploads would.
 */
import http from 'node:http';
import { expect } from 'chai';
import { BODY_BYTES_IN_PROGRESS } from '../../../src/http/bodyBudget.js';
import { eventually, expectProblem } from '../../support/assertions.js';
import { get, post, type ApiResponse } from '../../support/client.js';
import { assertMatchesContract } from '../../support/contract.js';
import { baseUrl } from '../../support/service.js';

const MIB = 1024 * 1024;

/** A token request declaring a JSON body of `bytes` and sending its first byte; `finish()` sends the rest and resolves with the status. */
function heldUpload(bytes: number): { finish(): Promise<number> } {
  const url = new URL('/cl/v1/auth/token', baseUrl());
  const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(bytes) } });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const headers = new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)] as [string, string]));
        // Answered outside test/support/client.ts: checked against the documents here.
        try {
          assertMatchesContract({ method: 'POST', path: url.pathname, status, headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          resolve(status);
        } catch (err) {
          reject(err);
        }
      });
    });
  });
  req.write('{');
  return {
    finish() {
      req.end(`${' '.repeat(bytes - 2)}}`);
      return answered;
    },
  };
}

const tokenRequest = { grant_type: 'client_credentials', client_id: 'demo-business', client_secret: 'demo-business-secret' };

describe('request bodies in progress are bounded (load shedding)', function () {
  this.timeout(60_000);

  it('answers 503 with Retry-After to a body beyond the bound, lets bodiless requests through, and takes bodies again once the others are gone', async () => {
    const held: { finish(): Promise<number> }[] = [];
    let refused: ApiResponse | undefined;
    try {
      // Bodies of 1 MiB held open one after another, each followed by a small one, until
      // a small one is refused: at 16 MiB in progress at the latest (sooner by what other
      // requests of the run still hold; one more for a held body not yet read by the server).
      while (!refused && held.length <= BODY_BYTES_IN_PROGRESS / MIB + 1) {
        held.push(heldUpload(MIB));
        await new Promise((resolve) => setTimeout(resolve, 50));
        const probe = await post('/cl/v1/auth/token', tokenRequest);
        if (probe.status === 503) refused = probe;
        else expect(probe.status, JSON.stringify(probe.body)).to.equal(200);
      }
      expect(refused, `a small body refused with ${held.length} MiB held`).to.not.equal(undefined);
      expectProblem(refused!, 503, 'SERVICE_UNAVAILABLE');
      expect(refused!.headers.get('retry-after')).to.equal('1');
      expect((await get('/health')).status).to.equal(200);
    } finally {
      // `{ }` is no token request: each held body is read in full and answered 400 (the
      // last one 503 when it was itself beyond the bound).
      const statuses = await Promise.all(held.map((h) => h.finish()));
      expect(statuses.slice(0, -1).every((s) => s === 400) && [400, 503].includes(statuses.at(-1)!), String(statuses)).to.equal(true);
    }
    await eventually(async () => {
      expect((await post('/cl/v1/auth/token', tokenRequest)).status).to.equal(200);
    }, 15_000);
  });
});
