/**
 * Mocha root hooks: one service for the whole run, on an ephemeral embedded
 * PostgreSQL (deleted afterwards) or on DATABASE_URL when set. Tests isolate
 * themselves by creating their own businesses, not by truncating tables.
 * The service runs with the API documents precompiled (into a temporary
 * directory, as `npm run build` does into dist/api/), as `npm start` runs it.
 *
 * Mocha loads the tests and this file as ES modules, as the service loads its own
 * (`import=tsx/esm` in .mocharc.json: only tsx's ES module hook, so mocha's `require`
 * fails over to `import`). With tsx's CommonJS hook as well, this file and its static
 * imports would load as CommonJS and the service's dynamic imports (src/server.ts) as ES
 * modules: two instances of every module that keeps state, so that the service's
 * handlers would use a background lane and business turns that src/server.ts never
 * configured (test/platform/running/metrics.test.ts fails then).
 */
import { createHook } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { precompileApis } from '../../src/http/apiBuild.js';
import { startService, type RunningService } from '../../src/server.js';
import { cardDataLeaks, LEAKS } from './leaks.js';
import { coverageKey, documentedResponses, loadContracts, observed, operationKey } from './contract.js';

/**
 * Operations answered from memory and files alone (no database, no provider): no
 * fault a test can cause reaches them, so their documented 500 (every operation
 * documents one) is exempt from the coverage gate. The 500 of every other operation
 * is received in test/platform/running/faults.test.ts.
 */
const NO_FAULT_REACHES = new Set([
  'getGatewayDescriptor',
  'getHealth',
  'getPing',
  'getApiDocument',
  'getApiDocumentYaml',
  'getApiChangelog',
  'getChangelog',
  'getVersionedApiDocument',
  'getVersionedApiDocumentYaml',
  'getMetrics', // serves NaN for the database's gauges rather than failing
  'getReadiness', // turns every database failure into its documented 503
]);

/** The providers' and the payout rail's callback secrets of every service the tests start (tests sign callbacks with them). */
export const TEST_CALLBACK_SECRETS = {
  IDENTITY_VERIFICATION: 'test-identity-provider-callback-secret',
  SCREENING: 'test-screening-provider-callback-secret',
  PAYOUT_RAIL: 'test-payout-rail-callback-secret',
} as const;

/**
 * The payout rail of a production-mode service (SANDBOX=false needs one) when a test names
 * none: a local address where nothing listens, so a submission fails and is retried.
 */
const UNREACHABLE_RAIL = 'http://127.0.0.1:9/payouts';

let service: RunningService | undefined;
let dataDir: string | undefined;
let apiDir: string | undefined;

/** Base URL of the service under test. */
export function baseUrl(): string {
  if (!service) throw new Error('service not started');
  return service.url;
}

/** The service under test (its database handle is for invariant checks only). */
export function running(): RunningService {
  if (!service) throw new Error('service not started');
  return service;
}

const RUN_DIR = mkdtempSync(path.join(tmpdir(), 'wallet-logs-'));

/** Every log line of the run's services (test/platform/running/logs.test.ts searches it for secrets). */
export const LOG_FILE = path.join(RUN_DIR, 'service.log');

/** Every response the tests received through test/support/client.ts, one JSON line each (searched for card data). */
export const RESPONSES_FILE = path.join(RUN_DIR, 'responses.jsonl');

/** Configuration of the service under test; `overrides` for extra instances. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const rail = overrides.sandbox === false && !('payoutRailUrl' in overrides) ? { payoutRailUrl: UNREACHABLE_RAIL } : {};
  return {
    ...loadConfig(),
    port: 0,
    host: '127.0.0.1',
    sandbox: true,
    rateLimitPerMinute: 100_000,
    rateLimitPerAddressPerMinute: 100_000,
    signInRateLimitPerAddressPerMinute: 100_000,
    jwtSecret: 'test-secret-test-secret-test-secret',
    logLevel: 'info',
    logFile: LOG_FILE,
    otpHashKey: 'test-otp-key-test-otp-key-test-otp-key',
    identityDataKey: 'test-identity-data-key-test-identity-data-key',
    cardDataKey: 'test-card-data-key-test-card-data-key',
    cardDataKeyVersion: 1,
    cardDataPreviousKeys: {},
    cardFingerprintKey: 'test-card-fingerprint-key-test-card-fingerprint-key',
    webhookSecretKey: 'test-webhook-secret-key-test-webhook-secret-key',
    idempotencyReplayKey: 'test-idempotency-replay-key-test-idempotency-replay-key',
    totpSecretKey: 'test-totp-secret-key-test-totp-secret-key',
    identityProviderCallbackSecret: TEST_CALLBACK_SECRETS.IDENTITY_VERIFICATION,
    screeningProviderCallbackSecret: TEST_CALLBACK_SECRETS.SCREENING,
    payoutRailCallbackSecret: TEST_CALLBACK_SECRETS.PAYOUT_RAIL,
    // Webhook retries: the whole three-day schedule in about 3 s (24 h → 0.86 s), an
    // attempt times out after 2 s, idle job workers look every 0.5 s.
    webhookRetryScale: 0.00001,
    webhookTimeoutMs: 2_000,
    jobPollingIntervalMs: 500,
    // Payouts stay PROCESSING 1 s before their automatic outcome.
    payoutProcessingMs: 1_000,
    ...rail,
    ...overrides,
  };
}

/**
 * The environment under which a service process (test/support/property/processes.ts) uses
 * testConfig's keys and secrets: for processes on the database of the service under test,
 * where each must open what the others sealed (webhook secrets, identity data) and verify
 * their tokens.
 */
export function testKeysEnv(): Record<string, string> {
  const c = testConfig();
  return {
    JWT_SECRET: String(c.jwtSecret),
    OTP_HASH_KEY: String(c.otpHashKey),
    IDENTITY_DATA_KEY: String(c.identityDataKey),
    CARD_DATA_KEY: String(c.cardDataKey),
    CARD_DATA_KEY_VERSION: String(c.cardDataKeyVersion),
    CARD_FINGERPRINT_KEY: String(c.cardFingerprintKey),
    WEBHOOK_SECRET_KEY: String(c.webhookSecretKey),
    IDEMPOTENCY_REPLAY_KEY: String(c.idempotencyReplayKey),
    TOTP_SECRET_KEY: String(c.totpSecretKey),
    IDENTITY_PROVIDER_CALLBACK_SECRET: String(c.identityProviderCallbackSecret),
    SCREENING_PROVIDER_CALLBACK_SECRET: String(c.screeningProviderCallbackSecret),
    PAYOUT_RAIL_CALLBACK_SECRET: String(c.payoutRailCallbackSecret),
  };
}

/** Where the API documents were precompiled for this run. */
export function precompiledApiDir(): string {
  if (!apiDir) throw new Error('service not started');
  return apiDir;
}

/**
 * Starts another server (e.g. with a low rate limit) on the same database, or on
 * another database of the same PostgreSQL when `database` names one.
 */
export async function startExtraService(overrides: Partial<Config>, database?: string, opts: Pick<Parameters<typeof startService>[1] & object, 'versionDeprecations'> = {}): Promise<RunningService> {
  const url = database ? databaseUrl!.replace(/\/[^/]*$/, `/${database}`) : databaseUrl;
  return startService(testConfig(overrides), { database: url, quiet: true, apiDir, ...opts });
}

/**
 * Registers the hooks of a suite whose services run on a database of its own (named
 * `<prefix>_<random>`, created in `before`, dropped in `after` with the services still
 * running closed first): `start` starts one on it (startExtraService(`overrides`)), `stop`
 * closes one.
 */
export function ownDatabaseServices(prefix: string): { start(overrides?: Partial<Config>): Promise<RunningService>; stop(service: RunningService): Promise<void> } {
  const database = `${prefix}_${randomUUID().slice(0, 8)}`;
  const services: RunningService[] = [];
  before(() => running().db.raw(`CREATE DATABASE ${database}`));
  after(async () => {
    for (const s of services) await s.close().catch(() => undefined);
    await running().db.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });
  return {
    async start(overrides = {}) {
      const s = await startExtraService(overrides, database);
      services.push(s);
      return s;
    },
    async stop(s) {
      services.splice(services.indexOf(s), 1);
      await s.close();
    },
  };
}

/**
 * Registers the hooks of a suite that also talks to another server on the same database
 * (startExtraService(`overrides`), e.g. `{ sandbox: false }` for production mode): started
 * in `before` and handed to `keep` (which stores it in the suite's variables), closed in
 * `after`.
 */
export function extraServiceHooks(overrides: Partial<Config>, keep: (service: RunningService) => void): void {
  let extra: RunningService | undefined;
  before(async () => {
    extra = await startExtraService(overrides);
    keep(extra);
  });
  after(async () => {
    await extra?.close();
  });
}

let databaseUrl: string | undefined;

/**
 * Where each live timer of the test process was made, so that the watchdog below can name
 * a timer that keeps the process alive after the suite (it has happened in CI now and then,
 * with only "Timeout" to go on). A stack of a few frames per timer; a timer's entry goes when
 * it fires or is cleared.
 */
const timers = new Map<number, { timer: { hasRef?: () => boolean }; stack: string }>();
createHook({
  init(id, type, _trigger, resource) {
    if (type === 'Timeout') timers.set(id, { timer: resource as { hasRef?: () => boolean }, stack: (new Error().stack ?? '').split('\n').slice(2).filter((line) => !line.includes('node:internal/')).slice(0, 8).join('\n') });
  },
  destroy(id) {
    timers.delete(id);
  },
}).enable();

/** The creation stacks of the timers that still hold the process (referenced). */
function referencedTimers(): string[] {
  return [...timers.values()].filter(({ timer }) => timer.hasRef?.() === true).map(({ stack }) => stack);
}

/** Whether every test of `suite` and the suites within it that was not skipped passed (a test a failed hook kept from running did not). */
function allPassed(suite: Mocha.Suite): boolean {
  return suite.tests.every((t) => t.isPending() || t.state === 'passed') && suite.suites.every(allPassed);
}

/**
 * The root hooks (.mocharc.json requires this file): `beforeAll` starts the service for the
 * run; `afterAll` applies the coverage gate (CONTRACT_COVERAGE=strict), searches the run's
 * logs and responses for leaks, and stops the service.
 */
export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(120_000);
    await loadContracts();
    const config = testConfig();
    if (!config.databaseUrl) {
      dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-test-'));
      chmodSync(dataDir, 0o755); // PostgreSQL runs as the `postgres` user when we are root
      config.dataDir = dataDir;
    }
    apiDir = mkdtempSync(path.join(tmpdir(), 'wallet-api-'));
    await precompileApis(apiDir);
    service = await startService(config, { persistent: false, quiet: true, apiDir });
    databaseUrl = service.databaseUrl;
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    // `npm test` sets CONTRACT_COVERAGE=strict: every status every operation documents,
    // and every error code each error response lists, must have been received by some
    // test (single-file runs skip this). That is what shows the documents list no
    // status or code the server cannot send.
    if (process.env.CONTRACT_COVERAGE === 'strict') {
      const missing = documentedResponses().filter(
        (r) =>
          !(r.status === 500 && NO_FAULT_REACHES.has(r.operationId)) &&
          !observed.get(operationKey(r.document, r.operationId))?.has(coverageKey(r.status, r.code)),
      );
      if (missing.length) {
        await service?.close();
        throw new Error(
          `Documented responses no test received (${missing.length}):\n  ${missing.map((r) => `${operationKey(r.document, r.operationId)} ${coverageKey(r.status, r.code)}`).join('\n  ')}`,
        );
      }
    }
    // No PAN, CVV or PIN of any card the run created may be in a log line or in an answer other than E6's.
    const cardLeaks = service ? await cardDataLeaks(service.db, testConfig(), LOG_FILE, RESPONSES_FILE) : [];
    await service?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (cardLeaks.length) throw new Error(`Card data leaked:\n  ${cardLeaks.join('\n  ')}`);
    if (apiDir) rmSync(apiDir, { recursive: true, force: true });
    // Nothing is to keep the process alive once the suite is over (mocha runs without
    // `exit: true`). Should something still hold it two minutes later, the process ends
    // and says what kind of resource holds it rather than hanging until CI's own time
    // limit; mocha's exit handler keeps its own exit code (its failures). Unref'd: it does
    // not hold the process itself.
    const watchdog = setTimeout(() => {
      console.error('The test process is still running two minutes after the suite ended; it is held by:', process.getActiveResourcesInfo());
      for (const stack of referencedTimers()) console.error(`a timer still referenced, made at:\n${stack}`);
      process.exit(1);
    }, 120_000);
    watchdog.unref();
    // Nothing the whole suite sent may have reached the logs (see test/platform/running/logs.test.ts).
    const logs = readFileSync(LOG_FILE, 'utf8');
    for (const [what, pattern] of LEAKS) if (pattern.test(logs)) throw new Error(`The logs of the run hold ${what}: ${LOG_FILE}`);
    // The run's service log and responses (tens of MB) are for finding out why a test
    // failed: kept, and named, when one did; otherwise removed with the run.
    if (this.test?.parent && allPassed(this.test.parent)) rmSync(RUN_DIR, { recursive: true, force: true });
    else console.log(`The run's service log and responses are kept in ${RUN_DIR}`);
  },
};
