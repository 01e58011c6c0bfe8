/**
 * The businesses and wallets a property run works on, created through the public API
 * of the first instance: per business a client token, wallets (the first two with
 * `can_overdraft`, fixed for the whole run) and the opening top-up and funds, which are
 * logged like every later operation so that every transaction of these businesses is
 * accounted for.
 */
import { request, type ApiResponse } from '../client.js';
import { tokenFor } from '../fixtures.js';
import type { BusinessModel, LoggedOp, WalletModel } from './model.js';
import type { Instances } from './transport.js';

/** Throws unless `res` has `status`, showing the body. */
function must(res: ApiResponse, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
}

export interface SetupOptions {
  seed: number;
  businesses: number;
  walletsPerBusiness: number;
  /** Overdraft-allowed wallets per business (the first ones). */
  overdraftWallets: number;
}

/** Creates the run's businesses and wallets and sends the opening money (logged in `log`). */
export async function setUpBusinesses(instances: Instances, opts: SetupOptions, log: LoggedOp[]): Promise<BusinessModel[]> {
  const baseUrl = instances.list()[0];
  const platform = await tokenFor('sandbox-platform', 'sandbox-platform-secret', baseUrl);
  const out: BusinessModel[] = [];
  for (let index = 0; index < opts.businesses; index++) {
    const created = await request('POST', '/cl/v1/businesses', { baseUrl, token: platform, body: { name: `Property ${opts.seed} #${index}` } });
    must(created, 201, 'createBusiness');
    const token = await tokenFor(created.body.credentials.client_id, created.body.credentials.client_secret, baseUrl);
    const wallets: WalletModel[] = [];
    for (let w = 0; w < opts.walletsPerBusiness; w++) {
      const canOverdraft = w < opts.overdraftWallets;
      const res = await request('POST', '/cl/v1/wallets', { baseUrl, token, body: { name: `property ${index}.${w}`, can_overdraft: canOverdraft } });
      must(res, 201, 'createWallet');
      wallets.push({ id: res.body.id, canOverdraft, suspended: false });
    }
    const business: BusinessModel = { index, id: created.body.id, token, wallets, payouts: [], reversible: [], reversed: [], refundedPayouts: [], irreversible: [] };
    const opening = new Array(wallets.length + 1).fill(0).map((_, i) => {
      const topup = i === 0;
      const op: LoggedOp = {
        n: log.length,
        kind: topup ? 'topup' : 'fund',
        variant: 'opening',
        business: index,
        type: topup ? 'TOPUP' : 'FUND',
        amount: topup ? '50000.00' : '300.00',
        attempts: [],
      };
      const body = topup ? { amount: '50000', external_reference: `open-${index}` } : { wallet_id: wallets[i - 1].id, amount: '300', external_reference: `open-${index}-${i}` };
      op.attempts.push({ role: 'first', instance: baseUrl, method: 'POST', path: topup ? '/cl/v1/testhelpers/topups' : '/cl/v1/funds', body, allowed: ['201'] });
      log.push(op);
      return op;
    });
    for (const op of opening) {
      await instances.send(op.attempts[0], token);
      if (op.attempts[0].status !== 201) throw new Error(`opening ${op.kind}: ${op.attempts[0].status} ${op.attempts[0].code ?? op.attempts[0].error ?? ''}`);
      if (op.kind === 'fund') business.reversible.push({ id: op.attempts[0].id!, amount: op.amount! });
      else business.irreversible.push(op.attempts[0].id!);
    }
    out.push(business);
  }
  return out;
}
