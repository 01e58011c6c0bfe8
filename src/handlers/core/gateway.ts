/**
 * Gateway: descriptor (seed E10), health, readiness, ping and the API documents (the
 * reference page is in docs.ts). A document is served as the request's version serves
 * it (`info.version` `<release>+<version>`, src/http/versions.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { operations } from '../../../generated/types/core.js';
import { AppError } from '../../kernel/errors.js';
import { DEFAULT_API_VERSION, documentYaml, servedDocument, SUPPORTED_API_VERSIONS, type ApiVersion } from '../../http/versions.js';
import { API_CHANGELOG, GENERATED_OPENAPI } from '../../paths.js';
import type { OperationMap } from '../../http/operation.js';

/** The version the request negotiated (`X-API-Version`, set on the Koa state by src/http/app.ts). */
function requestVersion(state: { apiVersion?: ApiVersion }): ApiVersion {
  return state.apiVersion ?? DEFAULT_API_VERSION;
}

export const gatewayOperations = {
  getGatewayDescriptor: {
    access: 'public',
    handle: async () => ({
      status: 200,
      body: {
        message: 'Wallet, money movement and card service',
        version: '1.0.0',
        timestamp: new Date().toISOString(),
        endpoints: {
          health: '/health',
          ready: '/ready',
          ping: '/ping',
          docs: '/docs',
          versioning: { header: 'X-API-Version', supported: [...SUPPORTED_API_VERSIONS], default: SUPPORTED_API_VERSIONS[0] },
        },
      },
    }),
  },
  getHealth: {
    access: 'public',
    handle: async () => ({ status: 200, body: { status: 'ok', timestamp: new Date().toISOString() } }),
  },
  getReadiness: {
    access: 'public',
    async handle({ db }) {
      try {
        await db.raw('SELECT 1');
      } catch {
        throw new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable.');
      }
      return { status: 200, body: { status: 'ready', checks: { database: 'ok' }, timestamp: new Date().toISOString() } };
    },
  },
  getPing: {
    access: 'public',
    handle: async () => ({ status: 200, body: { message: 'pong', timestamp: new Date().toISOString() } }),
  },
  getApiDocument: {
    access: 'public',
    handle: async ({ path: params, koa }) => ({
      status: 200,
      body: servedDocument(JSON.parse(await readFile(path.join(GENERATED_OPENAPI, `${params.document}.json`), 'utf8')), requestVersion(koa.state)),
    }),
  },
  getApiDocumentYaml: {
    access: 'public',
    handle: async ({ path: params, koa }) => ({
      status: 200,
      body: documentYaml(servedDocument(JSON.parse(await readFile(path.join(GENERATED_OPENAPI, `${params.document}.json`), 'utf8')), requestVersion(koa.state))),
      contentType: 'application/yaml',
    }),
  },
  getVersionedApiDocument: {
    access: 'public',
    handle: async ({ path: params }) => ({
      status: 200,
      body: servedDocument(JSON.parse(await readFile(path.join(GENERATED_OPENAPI, `${params.document}.json`), 'utf8')), params.version),
    }),
  },
  getVersionedApiDocumentYaml: {
    access: 'public',
    handle: async ({ path: params }) => ({
      status: 200,
      body: documentYaml(servedDocument(JSON.parse(await readFile(path.join(GENERATED_OPENAPI, `${params.document}.json`), 'utf8')), params.version)),
      contentType: 'application/yaml',
    }),
  },
  getApiChangelog: {
    access: 'public',
    handle: async () => ({ status: 200, body: await readFile(API_CHANGELOG, 'utf8'), contentType: 'text/markdown' }),
  },
} satisfies OperationMap<
  Pick<
    operations,
    | 'getGatewayDescriptor'
    | 'getHealth'
    | 'getReadiness'
    | 'getPing'
    | 'getApiDocument'
    | 'getApiDocumentYaml'
    | 'getVersionedApiDocument'
    | 'getVersionedApiDocumentYaml'
    | 'getApiChangelog'
  >
>;
