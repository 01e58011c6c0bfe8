/** Which payout rail (./rail.ts) a deployment uses. */
import type { Config } from '../kernel/serviceConfig.js';
import type { Logger } from '../log.js';
import { HttpPayoutRail } from './httpRail.js';
import type { PayoutRail } from './rail.js';
import { SandboxPayoutRail } from './sandboxRail.js';

/**
 * The rail of a deployment: the HTTP rail when PAYOUT_RAIL_URL is set (in the sandbox too,
 * to develop a connector against it), else the sandbox rail (src/config.ts refuses
 * SANDBOX=false without a rail).
 */
export function payoutRailOf(config: Config, log: Logger): PayoutRail {
  if (config.payoutRailUrl) {
    return new HttpPayoutRail({ url: config.payoutRailUrl, secret: Buffer.from(config.payoutRailCallbackSecret!, 'utf8'), timeoutMs: config.providerTimeoutMs, log });
  }
  if (!config.sandbox) throw new Error('no payout rail configured (PAYOUT_RAIL_URL)');
  return new SandboxPayoutRail(config.payoutProcessingMs);
}
