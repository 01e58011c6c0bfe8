/**
 * The README quickstart with a client made by openapi-typescript (default
 * settings) + openapi-fetch, as an integrator would write it. test/contract/sdk.test.ts
 * copies this file next to the generated `openapi-fetch/schema.ts`, type-checks
 * it with `tsc --strict` and runs it: `tsx quickstart-openapi-fetch.ts <service URL>`.
 */
import createClient from 'openapi-fetch';
import type { paths } from './openapi-fetch/schema.js';
import { check, checkMovement, checkNewWallet, checkRefund, checkRefundRefused, checkStatement, ok, runQuickstart } from './quickstart-checks.js';

await runQuickstart('openapi-typescript + openapi-fetch', async (baseUrl, suffix) => {
  // 1. Tokens: the sandbox platform client creates a business of our own, whose client we use.
  const anonymous = createClient<paths>({ baseUrl });
  const tokenOf = async (client_id: string, client_secret: string) =>
    ok('createToken', await anonymous.POST('/auth/token', { body: { grant_type: 'client_credentials', client_id, client_secret } })).access_token;
  const platform = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${await tokenOf('sandbox-platform', 'sandbox-platform-secret')}` } });
  const business = ok('createBusiness', await platform.POST('/businesses', { body: { name: `Quickstart ${suffix}` } }));
  const token = await tokenOf(business.credentials.client_id, business.credentials.client_secret);
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  // 2. A label, and two wallets.
  const label = ok('createLabel', await api.POST('/labels', { body: { name: `customers-${suffix}` } }));
  const w1 = ok('createWallet', await api.POST('/wallets', { body: { name: 'Ahmed', label_id: label.id } }));
  const w2 = ok('createWallet', await api.POST('/wallets', { body: { name: 'Sara', label_id: label.id } }));
  checkNewWallet(ok('getWallet', await api.GET('/wallets/{wallet_id}', { params: { path: { wallet_id: w1.id } } })));
  checkNewWallet(w2);

  // 3. Top up the operational account, then fund wallet 1.
  checkMovement(ok('createSandboxTopup', await api.POST('/testhelpers/topups', { body: { amount: '1000.00' } })), 'TOPUP', '1000.00');
  const fund = ok(
    'createFund',
    await api.POST('/funds', { params: { header: { 'Idempotency-Key': `fund-${w1.id}` } }, body: { wallet_id: w1.id, amount: '200.00' } }),
  );
  checkMovement(fund, 'FUND', '200.00');
  check('fund receiver', fund.receiver_account_number, w1.account_number);

  // 4. Transfer 50.00 from wallet 1 to wallet 2; 5. pay out 300.00 to wallet 2.
  const transfer = ok('createTransfer', await api.POST('/transfers', { body: { source_wallet_id: w1.id, destination_wallet_id: w2.id, amount: '50.00' } }));
  checkMovement(transfer, 'TRANSFER', '50.00');
  const payout = ok('createPayout', await api.POST('/payouts', { body: { wallet_id: w2.id, amount: '300.00' } }));
  checkMovement(payout, 'PAYOUT', '300.00');

  // 6. Two partial refunds of the payout; a third past its amount is refused.
  const refund = (key: string, amount: string, notes?: string) =>
    api.POST('/refunds', { params: { header: { 'Idempotency-Key': `${key}-${payout.id}` } }, body: { original_transaction_id: payout.id, amount, notes } });
  checkRefund(ok('createRefund', await refund('refund-1', '100.00', 'partial refund')), '100.00', '100.00');
  checkRefund(ok('createRefund', await refund('refund-2', '50.00')), '50.00', '150.00');
  const refused = await refund('refund-3', '200.00');
  checkRefundRefused(refused.response.status, refused.error);

  // 7. Wallet 2's statement, as JSON and as CSV.
  const path = { wallet_id: w2.id };
  const statement = ok('getWalletStatement', await api.GET('/wallets/{wallet_id}/statement', { params: { path } }));
  const csv = ok('getWalletStatementCsv', await api.GET('/wallets/{wallet_id}/statement.csv', { params: { path }, parseAs: 'text' }));
  checkStatement(statement, csv);
});
