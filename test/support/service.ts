/**
 * Mocha root hooks: one service for the whole run, on an ephemeral embedded
 * PostgreSQL (deleted afterwards) or on DATABASE_URL when set. Tests isolate
 * themselves by creating their own businesses, not by truncating tables.
 * The service runs with the API documents precompiled (into a temporary
 * directory, as `npm run build` does into dist/api/), as `npm start` runs it.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { precompileApis } from '../../src/http/apiBuild.js';
import { startService, type RunningService } from '../../src/server.js';
import { documentedPairs, loadContracts, observed } from './contract.js';

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

/** Configuration of the service under test; `overrides` for extra instances. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig(), port: 0, sandbox: true, rateLimitPerMinute: 100_000, jwtSecret: 'test-secret-test-secret-test-secret', ...overrides };
}

/** Where the API documents were precompiled for this run. */
export function precompiledApiDir(): string {
  if (!apiDir) throw new Error('service not started');
  return apiDir;
}

/** Starts another server on the same database (e.g. with a low rate limit). */
export async function startExtraService(overrides: Partial<Config>): Promise<RunningService> {
  return startService(testConfig(overrides), { database: databaseUrl, quiet: true, apiDir });
}

let databaseUrl: string | undefined;

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
    databaseUrl = (service.db.client.config.connection as string) ?? config.databaseUrl;
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    // `npm test` sets CONTRACT_COVERAGE=strict: every status every operation documents
    // must have been received by some test (single-file runs skip this).
    if (process.env.CONTRACT_COVERAGE === 'strict') {
      const missing = documentedPairs().filter((p) => !observed.get(p.operationId)?.has(p.status));
      if (missing.length) {
        await service?.close();
        throw new Error(`Documented responses no test received: ${missing.map((p) => `${p.operationId} ${p.status}`).join(', ')}`);
      }
    }
    await service?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (apiDir) rmSync(apiDir, { recursive: true, force: true });
  },
};
