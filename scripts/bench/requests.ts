/**
 * The requests the bench sends: the service's transfer between two random wallets of a
 * business, its fund of a random wallet from the business's operational account (one hot
 * row), and its getWallet; the bare reference's same three (scripts/reference-server.ts).
 *
 * A new headers object for every request: autocannon writes the body's Content-Length into
 * the one it is given, which a shared object would carry to requests with other bodies.
 */
import { randomUUID } from 'node:crypto';
import type { LoadRequest } from './load.js';

/** The bench's business (its dataset) (scripts/bench/dataset.ts): its id, its client's token, its wallets. */
export interface Dataset {
  businessId: string;
  token: string;
  wallets: string[];
}

const json = () => ({ 'content-type': 'application/json' });

/** A random wallet of `b`, and two distinct ones. */
function walletsOf(b: { wallets: string[] }): { one: () => string; two: () => [string, string] } {
  const one = () => b.wallets[Math.floor(Math.random() * b.wallets.length)];
  const two = (): [string, string] => {
    const from = one();
    let to = one();
    while (to === from) to = one();
    return [from, to];
  };
  return { one, two };
}

/** The service's requests on business `b`, each with an Idempotency-Key where it moves money. */
export function serviceRequests(b: Dataset): { transfer: () => LoadRequest; fund: () => LoadRequest; getWallet: () => LoadRequest } {
  const { one, two } = walletsOf(b);
  const authorization = `Bearer ${b.token}`;
  return {
    transfer: () => {
      const [from, to] = two();
      const body = JSON.stringify({ source_wallet_id: from, destination_wallet_id: to, amount: '1.00' });
      return { method: 'POST', path: '/cl/v1/transfers', headers: { ...json(), authorization, 'idempotency-key': randomUUID() }, body };
    },
    fund: () => ({
      method: 'POST',
      path: '/cl/v1/funds',
      headers: { ...json(), authorization, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ wallet_id: one(), amount: '1.00' }),
    }),
    getWallet: () => ({ method: 'GET', path: `/cl/v1/wallets/${one()}`, headers: { authorization } }),
  };
}

/** The bare reference's requests on the wallets of business `b`. */
export function referenceRequests(b: Dataset): { transfer: () => LoadRequest; fund: () => LoadRequest; getWallet: () => LoadRequest } {
  const { one, two } = walletsOf(b);
  return {
    transfer: () => {
      const [from, to] = two();
      return { method: 'POST', path: '/transfers', headers: json(), body: JSON.stringify({ source_wallet_id: from, destination_wallet_id: to, amount: '1.00' }) };
    },
    fund: () => ({ method: 'POST', path: '/funds', headers: json(), body: JSON.stringify({ business_id: b.businessId, wallet_id: one(), amount: '1.00' }) }),
    getWallet: () => ({ method: 'GET', path: `/accounts/${one()}` }),
  };
}
