/** The environment of a core request: database handle, business, providers, keys, own URL. */
import type { Knex } from 'knex';
import type { Context as KoaContext } from 'koa';
import type { CustomerEnv, ServiceEnv } from '../../customers/index.js';
import { AppError } from '../../kernel/errors.js';
import { businessIdOf } from '../../http/operation.js';
import type { Principal, Services } from '../../kernel/services.js';
import { providersOf } from '../../providers/index.js';
import { smsChannel } from '../../providers/sms.js';

/**
 * The base URL this request reached the service at (its socket's local
 * address), where the sandbox providers deliver their callbacks.
 */
function selfUrl(koa: KoaContext): string {
  const { localAddress = '127.0.0.1', localPort } = koa.req.socket;
  const host = localAddress.startsWith('::ffff:') ? localAddress.slice(7) : localAddress.includes(':') ? `[${localAddress}]` : localAddress;
  return `http://${host}:${localPort}`;
}

/** The environment of any core request (provider callbacks included). */
export async function serviceEnv(ctx: { db: Knex; services: Services; koa: KoaContext }): Promise<ServiceEnv> {
  const providers = providersOf(ctx.services);
  return {
    db: ctx.db,
    providers,
    sms: smsChannel(providers.sms, providers.timeoutMs),
    otpKey: ctx.services.keys.otp,
    nationalIdKeys: ctx.services.keys.nationalIds,
    selfUrl: selfUrl(ctx.koa),
    afterCommit: [],
  };
}

/** The environment of a business request (access `business`). */
export async function requestEnv(ctx: { db: Knex; principal: Principal | null; services: Services; koa: KoaContext }): Promise<CustomerEnv> {
  return { ...(await serviceEnv(ctx)), businessId: businessIdOf(ctx) };
}

/** Throws 404 NOT_FOUND outside the sandbox (test helpers). */
export function requireSandbox(services: Services): void {
  if (!services.config.sandbox) throw new AppError('NOT_FOUND', 'Test helpers are disabled outside the sandbox.');
}
