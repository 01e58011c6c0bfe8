/**
 * API reference page (`GET /docs`): Scalar's browser bundle, served from
 * node_modules by this service, renders both bundled documents
 * (`/openapi/closed-loop.json`, `/openapi/core.json`). A header above it links
 * both documents (their page and their JSON and YAML downloads). "Test request"
 * and the code samples call the origin the page is served from (each
 * document's server, set in the browser from `window.location.origin`), not the
 * documents' default `http://localhost:3000`. Nothing is loaded from another
 * origin: no proxy, no telemetry, no web fonts, no AI agent, and the page's
 * Content-Security-Policy would block it anyway.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { operations } from '../../../generated/types/core.js';
import type { OperationMap } from '../../http/operation.js';

type DocsOperations = Pick<operations, 'getApiReference' | 'getApiReferenceAsset'>;

const SCALAR_BUNDLE = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');

/**
 * The documents the page shows, in the order of its document selector (`?api=<slug>`),
 * with the path their operations are served under on this service.
 */
export const REFERENCE_SOURCES = [
  { title: 'Closed-loop API', slug: 'closed-loop', url: '/openapi/closed-loop.json', default: true, apiRoot: '/cl/v1' },
  { title: 'Core API', slug: 'core', url: '/openapi/core.json', apiRoot: '' },
] as const;

/**
 * Scalar configuration: every option that would reach another origin is turned off.
 * Each source's server is its API root, made absolute in the browser (CONFIGURATION_SCRIPT).
 */
const SCALAR_CONFIGURATION = {
  sources: REFERENCE_SOURCES.map(({ apiRoot, ...source }) => ({
    ...source,
    agent: { disabled: true },
    servers: [{ url: apiRoot, description: 'This service (the origin this page is served from)' }],
  })),
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
    <style>
      .api-documents { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: baseline; padding: 0.6rem 1rem; font: 14px/1.4 system-ui, sans-serif; border-bottom: 1px solid #ddd; }
      .api-documents nav { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; }
      .api-documents a { color: inherit; }
    </style>
  </head>
  <body>
    <header class="api-documents">
      <strong>Wallet API reference</strong>
      <nav aria-label="API documents">
${REFERENCE_SOURCES.map(
  (s) => `        <span class="api-document"><a href="/docs?api=${s.slug}">${s.title}</a> (<a href="${s.url}">JSON</a>, <a href="${s.url.replace(/\.json$/, '.yaml')}">YAML</a>)</span>`,
).join('\n')}
      </nav>
    </header>
    <noscript>The API reference needs JavaScript. The documents themselves are at /openapi/closed-loop.json and /openapi/core.json.</noscript>
    <div id="app"></div>
    <script src="/docs/assets/api-reference.js"></script>
    <script src="/docs/assets/configuration.js"></script>
  </body>
</html>
`;

/** Creates the reference, with each document's server on the origin the page is served from. */
const CONFIGURATION_SCRIPT = `const configuration = ${JSON.stringify(SCALAR_CONFIGURATION)};
for (const source of configuration.sources) {
  source.servers = source.servers.map((server) => ({ ...server, url: window.location.origin + server.url }));
}
Scalar.createApiReference('#app', configuration);
`;

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
