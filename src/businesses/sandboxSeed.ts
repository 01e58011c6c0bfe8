/**
 * Sandbox seeding on first start (SANDBOX=true): a platform client and one demo
 * business with fixed, documented credentials, so the README quickstart works
 * verbatim. Idempotent: existing clients keep their rows; their secrets are
 * stored again in the current form (a data directory from an earlier version).
 */
import type { Knex } from 'knex';
import { createBusiness } from './businesses.js';
import { clientExists, createClient, setClientSecret } from './clients.js';

export const SANDBOX_PLATFORM = { clientId: 'sandbox-platform', secret: 'sandbox-platform-secret' } as const;
export const SANDBOX_BUSINESS = { clientId: 'demo-business', secret: 'demo-business-secret' } as const;

/** Creates the sandbox clients and the demo business if missing. */
export async function seedSandbox(db: Knex): Promise<void> {
  if (!(await clientExists(db, SANDBOX_PLATFORM.clientId))) {
    await createClient(db, { kind: 'PLATFORM', businessId: null, clientId: SANDBOX_PLATFORM.clientId, secret: SANDBOX_PLATFORM.secret });
  } else {
    await setClientSecret(db, SANDBOX_PLATFORM.clientId, SANDBOX_PLATFORM.secret);
  }
  if (!(await clientExists(db, SANDBOX_BUSINESS.clientId))) {
    await createBusiness(db, { name: 'Demo Business', external_reference: 'demo' }, SANDBOX_BUSINESS);
  } else {
    await setClientSecret(db, SANDBOX_BUSINESS.clientId, SANDBOX_BUSINESS.secret);
  }
}
