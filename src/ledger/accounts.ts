/**
 * Opening ledger accounts that belong to someone other than the business itself:
 * wallets (kind WALLET, account number prefix 9, ./accountNumbers.ts). The ledger owns
 * the accounts; a business opens wallets through the closed-loop API
 * (src/businesses/wallets.ts) and a customer gets one when its onboarding completes
 * (src/customers/customerInformation.ts), both through `openWalletAccount`.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { nextAccountNumber } from './accountNumbers.js';
import type { AccountRow } from './ledger.js';

/** What a new wallet account holds besides its business (all optional but the name). */
export interface WalletAccountRequest {
  name: string;
  /** ISO 4217 code; default: the currency of the business's operational account, else SAR. */
  currency?: string;
  /** Default false. */
  canOverdraft?: boolean;
  /** A label of the business (checked by the caller). */
  labelId?: string | null;
  externalReference?: string | null;
}

/**
 * Opens a wallet account of business `businessId`: a new account number, ACTIVE,
 * balance 0.00. Returns its row. Throws only database errors (the caller checks the
 * business and the label first).
 */
export async function openWalletAccount(db: Knex, businessId: string, req: WalletAccountRequest): Promise<AccountRow> {
  const operational = await db('accounts').where({ business_id: businessId, kind: 'OPERATIONAL' }).first('currency');
  const [row] = await db('accounts')
    .insert({
      id: randomUUID(),
      business_id: businessId,
      kind: 'WALLET',
      account_number: await nextAccountNumber(db, 'WALLET'),
      currency: req.currency ?? operational?.currency ?? 'SAR',
      balance: '0.00',
      can_overdraft: req.canOverdraft ?? false,
      status: 'ACTIVE',
      name: req.name,
      label_id: req.labelId ?? null,
      external_reference: req.externalReference ?? null,
    })
    .returning('*');
  return row;
}
