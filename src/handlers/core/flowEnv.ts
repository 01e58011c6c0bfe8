/** The FlowEnv of a core request: its database handle, business, providers and OTP key. */
import type { FlowEnv } from '../../domain/customerFlow.js';
import { keptSecret } from '../../domain/settings.js';
import { AppError } from '../../errors.js';
import { businessIdOf, type Principal, type Services } from '../../http/operation.js';
import { providersOf } from '../../providers/index.js';
import type { Knex } from 'knex';

/** The flow environment of a business request (access `business`). */
export async function flowEnv(ctx: { db: Knex; principal: Principal | null; services: Services }): Promise<FlowEnv> {
  return {
    db: ctx.db,
    businessId: businessIdOf(ctx),
    providers: providersOf(ctx.services),
    otpKey: await keptSecret(ctx.services.db, 'otp_hash_key', ctx.services.config.otpHashKey),
  };
}

/** Throws 404 NOT_FOUND outside the sandbox (test helpers). */
export function requireSandbox(services: Services): void {
  if (!services.config.sandbox) throw new AppError('NOT_FOUND', 'Test helpers are disabled outside the sandbox.');
}
