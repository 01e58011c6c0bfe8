/**
 * The sandbox's demo data, made on first start (SANDBOX=true): a platform client and one demo
 * business with fixed, documented credentials, so the quickstart (README.md, docs/) works
 * verbatim. ("Seed" in this repository means the requirement the service implements, never
 * this data.) Idempotent: existing clients keep their rows; their secrets are
 * stored again in the current form (a data directory from an earlier version).
 * Safe when several instances start at once: it is made in one transaction under
 * a transaction-scoped advisory lock, so a second instance waits and then finds the
 * clients there.
 */
import type { Knex } from 'knex';
import { createBusiness } from './businesses.js';
import { clientExists, createClient, setClientSecret } from './clients.js';
import { ensureSandboxOwner } from './invitations.js';
import type { SealingKeys } from '../kernel/secrets/sealing.js';

export const SANDBOX_PLATFORM = { clientId: 'sandbox-platform', secret: 'sandbox-platform-secret' } as const;
export const SANDBOX_BUSINESS = { clientId: 'demo-business', secret: 'demo-business-secret' } as const;
/**
 * The demo business's owner, who signs in to the portal (email, password and a code of the
 * TOTP secret: any authenticator app takes the base32 secret). Public, as the sandbox is.
 */
export const SANDBOX_OWNER = { email: 'owner@demo.example', name: 'Demo Owner', password: 'demo-owner-password', totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' } as const;

/** Creates the sandbox clients, the demo business and its owner (`totpKeys` seal the owner's TOTP secret) if missing (see the module comment). */
export async function createSandboxDemo(db: Knex, totpKeys: SealingKeys): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['wallet-service:sandbox-seed']);
    if (!(await clientExists(trx, SANDBOX_PLATFORM.clientId))) {
      await createClient(trx, { kind: 'PLATFORM', businessId: null, clientId: SANDBOX_PLATFORM.clientId, secret: SANDBOX_PLATFORM.secret });
    } else {
      await setClientSecret(trx, SANDBOX_PLATFORM.clientId, SANDBOX_PLATFORM.secret);
    }
    if (!(await clientExists(trx, SANDBOX_BUSINESS.clientId))) {
      await createBusiness(trx, { name: 'Demo Business', external_reference: 'demo' }, SANDBOX_BUSINESS);
    } else {
      await setClientSecret(trx, SANDBOX_BUSINESS.clientId, SANDBOX_BUSINESS.secret);
    }
    const { business_id: businessId } = await trx('api_clients').where({ client_id: SANDBOX_BUSINESS.clientId }).first('business_id');
    await ensureSandboxOwner(trx, totpKeys, businessId, SANDBOX_OWNER);
  });
}
