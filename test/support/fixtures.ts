/**
 * Fixtures of the closed loop, built through the public API only: businesses (through
 * the sandbox platform client) with a token of their own client, wallets, and money on
 * them (the sandbox top-up, funds, payouts).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { post } from './client.js';

/** A short unique suffix for names and references. */
export const uniq = (): string => randomUUID().slice(0, 8);

/** An access token for client credentials, from the main service or the one at `baseUrl`; asserts 200. */
export async function tokenFor(clientId: string, clientSecret: string, baseUrl?: string): Promise<string> {
  const res = await post('/cl/v1/auth/token', { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }, { baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.access_token;
}

/** A token of the sandbox platform client. */
export const platformToken = (): Promise<string> => tokenFor('sandbox-platform', 'sandbox-platform-secret');

/**
 * Who sends a fixture's requests: a business's access token and, when the requests go
 * to another instance than the main service under test (e.g. one from
 * startExtraService), that instance's base URL. A TestBusiness is one.
 */
export interface Caller {
  token: string;
  baseUrl?: string;
}

/** A business of the test's own: its id, a token of its client, its operational account's number. */
export interface TestBusiness {
  id: string;
  token: string;
  operationalAccountNumber: string;
}

/** A new business (via the platform client) and a token of its own client. */
export async function newBusiness(name = `Business ${uniq()}`): Promise<TestBusiness> {
  const res = await post('/cl/v1/businesses', { name }, { token: await platformToken() });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return {
    id: res.body.id,
    token: await tokenFor(res.body.credentials.client_id, res.body.credentials.client_secret),
    operationalAccountNumber: res.body.operational_account.account_number,
  };
}

/** A new wallet of the business; asserts 201. */
export async function newWallet(token: string, body: Record<string, unknown> = {}): Promise<any> {
  const res = await post('/cl/v1/wallets', { name: `Wallet ${uniq()}`, ...body }, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** Tops up the business's operational account (sandbox helper); asserts 201. */
export async function topup(token: string, amount: string): Promise<any> {
  const res = await post('/cl/v1/testhelpers/topups', { amount }, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** Moves money from the operational account into a wallet with the given operation; asserts 201. */
export async function credit(token: string, walletId: string, amount: string, via: 'funds' | 'payouts' = 'funds'): Promise<any> {
  const res = await post(`/cl/v1/${via}`, { wallet_id: walletId, amount }, { token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/** A wallet holding `amount` (topped up and funded). */
export async function fundedWallet(token: string, amount: string, body: Record<string, unknown> = {}): Promise<any> {
  const wallet = await newWallet(token, body);
  await topup(token, amount);
  await credit(token, wallet.id, amount);
  return wallet;
}
