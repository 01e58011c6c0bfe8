/**
 * What the review of a money movement tells before it is confirmed (the Move money forms,
 * the payout forms, the corrections that move money): the receiver's name and account, the
 * amount normalised with its currency (ui.js formatMoney), each account's balance after, and
 * warnings that do not block: a balance going below zero (with whether the wallet may
 * overdraft, `can_overdraft`: the service refuses it otherwise) and an external reference
 * that another payout used in the last 24 hours (core `listCustomerPayouts` by
 * `external_reference` and `created_from`). Balances are the API's as the review opens; the
 * service decides with its own when the movement is sent.
 */
import { html } from '../preact-htm.js';
import { Money, formatMoney } from '../ui.js';
import { cents, fromCents, negative } from '../amounts.js';

/** A wallet as a receiver or a source: "Payroll · wallet 900000000019". */
export const walletWords = (w) => `${w.name ?? 'No name'} · wallet ${w.account_number}`;

/** The window a repeated external reference is looked for in. */
const REPEAT_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * An account's balance after a movement of `amount` out of it (`out`) or into it, as a fact
 * `[term, Money]`, and the warning when it goes below zero.
 * @param {{ name: string, balance: string, amount: string, currency: string, out: boolean, canOverdraft?: boolean }} account
 *   `canOverdraft` for a wallet (its `can_overdraft`); absent for the business's own accounts, which may not.
 * @returns {{ fact: any[], warning: string | null }}
 */
export function balanceAfter({ name, balance, amount, currency, out, canOverdraft }) {
  const after = fromCents(cents(balance) + (out ? -cents(amount) : cents(amount)));
  const fact = [`${name} after`, html`<${Money} amount=${after} currency=${currency} />`];
  if (!negative(after)) return { fact, warning: null };
  const may = canOverdraft
    ? 'the wallet may overdraft, so the service will allow it'
    : `${canOverdraft === false ? 'the wallet may not overdraft' : 'it may not go below zero'}, so the service will refuse it`;
  return { fact, warning: `${name} goes below zero: ${formatMoney(after, currency)} after this (${may}).` };
}

/**
 * The warning when payouts of the last 24 hours already carry `reference` (null when none,
 * when no reference is given, or when the user may not read payouts).
 */
export async function repeatedReference(api, reference) {
  const ref = reference?.trim();
  if (!ref || !api.can('payouts:read')) return null;
  const since = new Date(Date.now() - REPEAT_WINDOW_MS).toISOString();
  const page = await api.get('/payouts/', { query: { external_reference: ref, created_from: since, limit: 10 } });
  if (!page.data.length) return null;
  const count = page.has_more ? `more than ${page.data.length} payouts` : page.data.length === 1 ? 'another payout' : `${page.data.length} other payouts`;
  return `The external reference “${ref}” was used by ${count} in the last 24 hours (${page.data.map((p) => p.payout_id).slice(0, 3).join(', ')}): check this is not the same payout twice.`;
}

/** The business's payout account (`getBusinessAccountBalance`): `{ account_number, currency, balance }`. */
export const payoutAccount = async (api) => (await api.get('/business-account/balance')).payout_account;

/** The business's operational account (`getBusinessAccountBalance`): `{ account_number, currency, balance }`. */
export const operationalAccount = async (api) => (await api.get('/business-account/balance')).operational_account;

/**
 * The review of a payout of `amount` to a customer's wallet from the payout account: the
 * receiver (`name`, `account`), the amount with its currency, the payout account's balance
 * after, purpose and reference, and the warnings of a low balance or a repeated reference.
 * @returns {Promise<{ facts: any[][], warnings: string[], currency: string }>}
 */
export async function payoutReview(api, { amount, name, account, purpose, reference }) {
  const [from, repeated] = await Promise.all([payoutAccount(api), repeatedReference(api, reference)]);
  const after = balanceAfter({ name: 'Payout account', balance: from.balance, amount, currency: from.currency, out: true });
  return {
    currency: from.currency,
    facts: [
      ['Receiver', walletWords({ name, account_number: account ?? '—' })],
      ['Amount', html`<${Money} amount=${amount} currency=${from.currency} />`],
      ['From', `Payout account ${from.account_number}`],
      after.fact,
      ['Purpose', purpose?.trim() || '—'],
      ['External reference', reference?.trim() || '—'],
    ],
    warnings: [after.warning, repeated].filter(Boolean),
  };
}
