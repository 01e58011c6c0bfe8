/**
 * API reference page (`GET /docs`): Scalar's browser bundle, served from
 * node_modules by this service, renders both bundled documents
 * (`/openapi/closed-loop.json`, `/openapi/core.json`). Nothing is loaded from
 * another origin: no proxy, no telemetry, no web fonts, no AI agent, and the
 * page's Content-Security-Policy would block it anyway.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { operations } from '../../../generated/types/core.js';
import type { OperationMap } from '../../http/operation.js';

type DocsOperations = Pick<operations, 'getApiReference' | 'getApiReferenceAsset'>;

const SCALAR_BUNDLE = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');

/** The documents the page shows, in the order of its document selector (`?api=<slug>`). */
export const REFERENCE_SOURCES = [
  { title: 'Closed-loop API', slug: 'closed-loop', url: '/openapi/closed-loop.json', default: true },
  { title: 'Core API', slug: 'core', url: '/openapi/core.json' },
] as const;

/** Scalar configuration: every option that would reach another origin is turned off. */
const SCALAR_CONFIGURATION = {
  sources: REFERENCE_SOURCES.map((source) => ({ ...source, agent: { disabled: true } })),
  telemetry: false,
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  defaultOpenAllTags: true,
  showOperationId: true,
  documentDownloadType: 'json',
};

/** Scripts, data, images and fonts from this service only; Scalar injects its styles inline. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Wallet API reference</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <noscript>The API reference needs JavaScript. The documents themselves are at /openapi/closed-loop.json and /openapi/core.json.</noscript>
    <div id="app"></div>
    <script src="/docs/assets/api-reference.js"></script>
    <script src="/docs/assets/configuration.js"></script>
  </body>
</html>
`;

const CONFIGURATION_SCRIPT = `Scalar.createApiReference('#app', ${JSON.stringify(SCALAR_CONFIGURATION)});\n`;

let scalarBundle: Promise<string> | undefined;

export const docsOperations = {
  getApiReference: {
    access: 'public',
    async handle({ koa }) {
      koa.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      return { status: 200, body: PAGE, contentType: 'text/html' };
    },
  },
  getApiReferenceAsset: {
    access: 'public',
    async handle({ path: params }) {
      if (params.asset_name === 'configuration.js') return { status: 200, body: CONFIGURATION_SCRIPT, contentType: 'text/javascript' };
      scalarBundle ??= readFile(SCALAR_BUNDLE, 'utf8');
      return { status: 200, body: await scalarBundle, contentType: 'text/javascript' };
    },
  },
} satisfies OperationMap<DocsOperations>;
