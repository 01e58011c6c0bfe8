/**
 * The bench's settings, read once from the environment (docs/benchmark.md lists them):
 *
 *   SECONDS (10), WARMUP (3), CONNECTIONS (50)  each single-request scenario: seconds measured
 *                                               per server, seconds of warm-up, connections
 *   WALLETS (2000)                              wallets of the bench business
 *   STARTS (3)                                  starts timed for the start-up target
 *   GROWTH_TRANSFERS (1000000), GROWTH_SECONDS (8), GROWTH_CONNECTIONS (10)
 *                                               the growth scenario's history and load
 *   ONLY                                        comma-separated scenario names (or their
 *                                               beginnings: `getWallet`, `bulk`, `isolation`,
 *                                               `growth`): run only those; `citus`: the
 *                                               service on a Citus cluster instead
 *   SERVICE_NODE_OPTIONS                        NODE_OPTIONS of the service's `npm start`
 *                                               only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`)
 *   DB_POOL_SIZE                                the service's pool, given to the reference too
 *   BUSINESSES (64), BUSINESS_WALLETS (10)      `ONLY=citus`, many businesses: how many, and
 *                                               the wallets of each
 *   RATE                                        `ONLY=citus`, many businesses: requests a second
 *                                               (default: half the lower of the two sides'
 *                                               saturated rates for the kind, measured first)
 *   SOAK_SECONDS (0)                            `ONLY=citus`: then the many businesses' load on
 *                                               the cluster for this long, memory every 30 s
 */
import { loadConfig } from '../../src/config.js';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export const KNOBS = {
  seconds: number('SECONDS', 10),
  warmup: number('WARMUP', 3),
  connections: number('CONNECTIONS', 50),
  wallets: number('WALLETS', 2000),
  starts: number('STARTS', 3),
  growthTransfers: number('GROWTH_TRANSFERS', 1_000_000),
  growthSeconds: number('GROWTH_SECONDS', 8),
  growthConnections: number('GROWTH_CONNECTIONS', 10),
  only: process.env.ONLY?.split(','),
  serviceNodeOptions: process.env.SERVICE_NODE_OPTIONS,
  poolSize: loadConfig().dbPoolSize,
  businesses: number('BUSINESSES', 64),
  businessWallets: number('BUSINESS_WALLETS', 10),
  rate: process.env.RATE ? Number(process.env.RATE) : undefined,
  soakSeconds: number('SOAK_SECONDS', 0),
};

/** Whether scenario `name` runs (ONLY). */
export const selected = (name: string): boolean => !KNOBS.only || KNOBS.only.some((o) => name.startsWith(o));
