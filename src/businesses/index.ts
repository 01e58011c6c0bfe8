/**
 * The businesses' face (src/kernel/capability.ts), which is also the door to a business's
 * people (portal users and their sessions). Its start makes the sandbox's demo data
 * (src/businesses/sandboxDemo.ts) when the instance runs as the sandbox (SANDBOX=true), and
 * derives the TOTP secrets' sealing keys.
 */
import { NOTHING_TO_STOP, type StartContext, type Started } from '../kernel/capability.js';
import { createSandboxDemo } from './sandboxDemo.js';
import { totpSecretKeys } from './users.js';

/** Makes the sandbox's demo data if missing (SANDBOX=true) and derives the TOTP secrets' keys; starts no worker. */
export async function start({ db, config }: StartContext): Promise<Started> {
  const totpSecrets = await totpSecretKeys(db, config);
  if (config.sandbox) await createSandboxDemo(db, totpSecrets);
  return { stop: NOTHING_TO_STOP, keys: { totpSecrets } };
}

// What the handlers and the capabilities above call (the face is the only door: .dependency-cruiser.cjs).
export { businessApiVersion, businessSettings, createBusiness, getBusiness, getBusinessAccountBalance, listBusinesses, updateBusiness } from './businesses.js';
export { authenticateClient, clientPermissions } from './clients.js';
export { createApiKey, getApiKey, listApiKeys, revokeApiKey, rollApiKeySecret, updateApiKey } from './apiKeys.js';
export { createLabel, listLabels } from './labels.js';
export { getUser, inviteUser, listUsers, removeUser, updateUser } from './users.js';
export { acceptInvitation, confirmTotp, listSandboxUserInvitations } from './invitations.js';
export { csrfTokenOf, currentSession, endSessions, sessionCookie, reauthenticate, sessionPrincipal, signIn } from './sessions.js';
export { SANDBOX_BUSINESS, SANDBOX_OWNER, SANDBOX_PLATFORM } from './sandboxDemo.js';
export { assignWalletLabel, createWallet, getWallet, getWalletBalance, listWallets, lookupWallet, removeWalletLabel, updateWallet } from './wallets.js';
export { searchWallets } from './walletSearch.js';
