/**
 * The cards' face (src/kernel/capability.ts). Its start derives the card data keys once
 * (src/cards/keys.ts: CARD_DATA_KEY, docs/configuration.md); cards start no worker.
 */
import { NOTHING_TO_STOP, type StartContext, type Started } from '../kernel/capability.js';
import { cardKeys } from './keys.js';

/** Derives the card data keys (sealing and the PAN fingerprint) for the handlers. */
export async function start({ db, config }: StartContext): Promise<Started> {
  return { stop: NOTHING_TO_STOP, keys: { cardData: await cardKeys(db, config) } };
}

// What the handlers and the capabilities above call (the face is the only door: .dependency-cruiser.cjs).
export { changeCardStatus, getCard, listCustomerCards } from './cards.js';
export { completeCardIssuance, getCardIssuance, issueCard, verifyCardIssuanceOtp } from './issuance.js';
export type { CardEnv } from './otp.js';
export { displayCardSensitiveData, verifyDisplaySensitiveDataOtp } from './sensitiveData.js';
export { simulateCardAuthorization, simulateCardBalanceInquiry, type SimulatorEnv } from './simulator.js';
export { searchCards } from './search.js';
export { startCardStep, verifyCardStep, type CardStepPurpose, type StepRequest } from './steps.js';
export { confirmActivationIvr, createActivationCodeRequest, getActivationCodeRequest, verifyActivationCode } from './tokenization.js';
