/**
 * Compile-time probes, never run: with either generated client a wrong field,
 * parameter or path name is a type error. Every line after `@ts-expect-error`
 * must fail to compile; when one compiles (a client typed too loosely, an `any`
 * somewhere), tsc reports the directive as unused and test/contract/sdk.test.ts fails.
 *
 * Two gaps of the clients themselves (not of the document), left out on purpose:
 * - openapi-fetch 0.17 accepts a misspelt *optional* body field once every required
 *   one is present (openapi-ts/openapi-typescript#1769: `Init` is inferred, so no
 *   excess-property check). The server still refuses it (every request schema has
 *   `additionalProperties: false`): 400 VALIDATION_ERROR, which a quickstart run shows.
 * - hey-api 0.95 merges its free-form `headers` option with the documented ones, so a
 *   misspelt header name (e.g. `Idempotency-Keys`) compiles and is sent unnoticed.
 */
import createClient from 'openapi-fetch';
import type { paths } from './openapi-fetch/schema.js';
import { createClient as createHeyApiClient } from './hey-api/client/index.js';
import { createRefund, createWallet, getWalletStatement } from './hey-api/index.js';

/** openapi-typescript + openapi-fetch: bodies, parameters, paths and responses are checked. */
export async function openapiFetchProbes(): Promise<void> {
  const api = createClient<paths>({ baseUrl: 'http://localhost:3000/cl/v1' });
  // @ts-expect-error misspelt required body field (name)
  await api.POST('/wallets', { body: { nme: 'Ahmed', label_id: 'x' } });
  // @ts-expect-error wrong type of a body field (can_overdraft is a boolean)
  await api.POST('/wallets', { body: { name: 'Ahmed', can_overdraft: 'yes' } });
  // @ts-expect-error misspelt header parameter (Idempotency-Key)
  await api.POST('/refunds', { params: { header: { 'Idempotency-Keys': 'k' } }, body: { amount: '1.00' } });
  // @ts-expect-error misspelt path parameter (wallet_id)
  await api.GET('/wallets/{wallet_id}/statement', { params: { path: { walletId: 'w' } } });
  // @ts-expect-error undocumented path
  await api.GET('/wallets/{wallet_id}/statements', { params: { path: { wallet_id: 'w' } } });
  const { data } = await api.GET('/wallets/{wallet_id}/statement', { params: { path: { wallet_id: 'w' } } });
  // @ts-expect-error misspelt response field (closing_balance)
  console.log(data?.closing_balanse);
}

/** @hey-api/openapi-ts: the same mistakes through its SDK functions. */
export async function heyApiProbes(): Promise<void> {
  const client = createHeyApiClient({ baseUrl: 'http://localhost:3000/cl/v1' });
  // @ts-expect-error misspelt optional body field (label_id)
  await createWallet({ client, body: { name: 'Ahmed', lable_id: 'x' } });
  // @ts-expect-error misspelt body field of a refund (original_transaction_id)
  await createRefund({ client, body: { original_transaction: 'x', amount: '1.00' } });
  // @ts-expect-error misspelt path parameter (wallet_id)
  await getWalletStatement({ client, path: { walletId: 'w' } });
  const { data } = await getWalletStatement({ client, path: { wallet_id: 'w' } });
  // @ts-expect-error misspelt response field (closing_balance)
  console.log(data?.closing_balanse);
}
