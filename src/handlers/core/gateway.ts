/**
 * Gateway: descriptor (seed E10), health, readiness, ping and the API documents (the
 * reference page is in docs.ts). A version's document is served exactly as released: main is
 * always released (test/contract/released.test.ts), so that is what the server runs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { operations } from '../../../generated/types/core.js';
import { AppError } from '../../kernel/errors.js';
import { DEFAULT_API_VERSION, documentYaml, SUPPORTED_API_VERSIONS, type ApiVersion } from '../../http/versions.js';
import { API_CHANGELOG, RELEASED_OPENAPI } from '../../paths.js';
import type { OperationMap } from '../../http/operation.js';

/** The version the request negotiated (`X-API-Version`, set on the Koa state by src/http/app.ts). */
function requestVersion(state: { apiVersion?: ApiVersion }): ApiVersion {
  return state.apiVersion ?? DEFAULT_API_VERSION;
}

/**
 * The JSON text of `document` as `version` serves it: its released document
 * (openapi/released/<version>/<document>.json), byte for byte. Throws (a 500) when the
 * version has none: a supported version is released before it ships.
 */
async function documentText(document: string, version: ApiVersion): Promise<string> {
  return readFile(path.join(RELEASED_OPENAPI, version, `${document}.json`), 'utf8');
}

/**
 * `documentText` as a response: the JSON text as it is (typed as the document it holds: a
 * string body is sent unchanged, not serialized again, so the bytes are the released ones),
 * or its YAML form.
 */
async function documentResponse<Body>(document: string, version: ApiVersion, yaml: boolean): Promise<{ status: 200; body: Body; contentType: string }> {
  const text = await documentText(document, version);
  return yaml
    ? { status: 200, body: documentYaml(JSON.parse(text)) as Body, contentType: 'application/yaml' }
    : { status: 200, body: text as Body, contentType: 'application/json' };
}

/** The API changelog (openapi/CHANGELOG.md), as committed: at `/changelog`, and beside the documents. */
async function changelog() {
  return { status: 200 as const, body: await readFile(API_CHANGELOG, 'utf8'), contentType: 'text/markdown' };
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
      // Ready only on a database that takes writes: a standby (a former primary after a
      // failover, or a router that has not found the new primary yet) is read-only.
      let readOnly: boolean;
      try {
        readOnly = (await db.raw("SELECT current_setting('transaction_read_only') = 'on' AS read_only")).rows[0].read_only;
      } catch {
        throw new AppError('SERVICE_UNAVAILABLE', 'The database is not reachable.');
      }
      if (readOnly) throw new AppError('SERVICE_UNAVAILABLE', 'The database is read-only: no primary is reachable.');
      return { status: 200, body: { status: 'ready', checks: { database: 'ok' }, timestamp: new Date().toISOString() } };
    },
  },
  getPing: {
    access: 'public',
    handle: async () => ({ status: 200, body: { message: 'pong', timestamp: new Date().toISOString() } }),
  },
  getApiDocument: {
    access: 'public',
    handle: ({ path: params, koa }) => documentResponse(params.document, requestVersion(koa.state), false),
  },
  getApiDocumentYaml: {
    access: 'public',
    handle: ({ path: params, koa }) => documentResponse(params.document, requestVersion(koa.state), true),
  },
  getVersionedApiDocument: {
    access: 'public',
    handle: ({ path: params }) => documentResponse(params.document, params.version, false),
  },
  getVersionedApiDocumentYaml: {
    access: 'public',
    handle: ({ path: params }) => documentResponse(params.document, params.version, true),
  },
  getApiChangelog: {
    access: 'public',
    handle: changelog,
  },
  getChangelog: {
    access: 'public',
    handle: changelog,
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
    | 'getChangelog'
  >
>;
