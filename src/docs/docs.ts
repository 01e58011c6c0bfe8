/**
 * The API reference page (`GET /docs`), a page of the service served outside the API
 * documents (src/kernel/servicePages.ts): Scalar's browser bundle, served from
 * node_modules by this service, renders both bundled documents
 * (`/openapi/closed-loop.json`, `/openapi/core.json`). A header above it links
 * both documents (their page and their JSON and YAML downloads) and the API
 * changelog (`/openapi/CHANGELOG.md`). "Test request"
 * and the code samples call the origin the page is served from (each
 * document's server, set in the browser from `window.location.origin`), not the
 * documents' default `http://localhost:3000`. Nothing is loaded from another
 * origin: no proxy, no telemetry, no web fonts, no AI agent, and the page's
 * Content-Security-Policy would block it anyway.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ParsedUrlQuery } from 'node:querystring';
import { AppError, invalidField } from '../kernel/errors.js';
import { DEFAULT_API_VERSION, isApiVersion, SUPPORTED_API_VERSIONS, type ApiVersion } from '../kernel/versioning/apiVersions.js';
import type { ServicePage } from '../http/pages.js';

const SCALAR_BUNDLE = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');

/**
 * The documents the page shows, in the order of its document selector (`?api=<slug>`),
 * with the path their operations are served under on this service.
 */
const REFERENCE_SOURCES = [
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
const CONTENT_SECURITY_POLICY = [
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

/** A document's address as `version` serves it (`/openapi/v2/core.json`), or the unversioned one. */
function documentUrl(url: string, version: ApiVersion | undefined): string {
  return version ? url.replace(/^\/openapi\//, `/openapi/${version}/`) : url;
}

/**
 * The page for `version` (`?version=`; without it the unversioned documents, which serve the
 * request's version as released): a header linking both documents, the changelog, and a
 * version picker (one link per supported version, the shown one marked `aria-current`).
 */
function page(version: ApiVersion | undefined): string {
  const query = version ? `&amp;version=${version}` : '';
  return `<!doctype html>
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
      .api-documents a[aria-current] { font-weight: bold; text-decoration: none; }
    </style>
  </head>
  <body>
    <header class="api-documents">
      <strong>Wallet API reference</strong>
      <nav aria-label="API documents">
${REFERENCE_SOURCES.map((s) => {
  const url = documentUrl(s.url, version);
  return `        <span class="api-document"><a href="/docs?api=${s.slug}${query}">${s.title}</a> (<a href="${url}">JSON</a>, <a href="${url.replace(/\.json$/, '.yaml')}">YAML</a>)</span>`;
}).join('\n')}
        <span class="api-document"><a href="/openapi/CHANGELOG.md">Changelog</a></span>
      </nav>
      <nav aria-label="API version" class="api-versions">Version:
${SUPPORTED_API_VERSIONS.map((v) => `        <a ${v === (version ?? DEFAULT_API_VERSION) ? 'aria-current="page" ' : ''}href="/docs?version=${v}">${v}</a>`).join('\n')}
      </nav>
    </header>
    <noscript>The API reference needs JavaScript. The documents themselves are at /openapi/closed-loop.json and /openapi/core.json.</noscript>
    <div id="app"></div>
    <script src="/docs/assets/api-reference.js"></script>
    <script src="/docs/assets/configuration.js"></script>
  </body>
</html>
`;
}

/** Creates the reference, with each document's server on the origin the page is served from. */
const CONFIGURATION_SCRIPT = `const configuration = ${JSON.stringify(SCALAR_CONFIGURATION)};
const search = new URLSearchParams(window.location.search);
const version = search.get('version');
for (const source of configuration.sources) {
  if (version && /^v[0-9]+$/.test(version)) source.url = source.url.replace(/^\\/openapi\\//, '/openapi/' + version + '/');
  source.servers = source.servers.map((server) => ({ ...server, url: window.location.origin + server.url }));
}
Scalar.createApiReference('#app', configuration);
`;

/**
 * The query value `name` of `query` when it is one of `allowed` (undefined when absent);
 * 400 VALIDATION_ERROR at `/query/<name>` for any other value, a repeated one included.
 */
function choice<T extends string>(query: ParsedUrlQuery, name: string, allowed: (value: string) => value is T, expected: readonly string[]): T | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string' && allowed(value)) return value;
  throw invalidField(`/query/${name}`, `must be one of ${expected.join(', ')}`);
}

const isSlug = (value: string): value is (typeof REFERENCE_SOURCES)[number]['slug'] => REFERENCE_SOURCES.some((s) => s.slug === value);

let scalarBundle: Promise<string> | undefined;

/**
 * The API reference, served at `/docs`: the page (`?api=` the document it opens, `?version=`
 * the version whose documents it shows; another value of either is 400 VALIDATION_ERROR) and
 * its two scripts under `/docs/assets/` (any other path is 404 `NOT_FOUND`).
 */
export const docsPage: ServicePage = {
  root: '/docs',
  contentSecurityPolicy: CONTENT_SECURITY_POLICY,
  async file(rest, query) {
    if (rest === '') {
      choice(query, 'api', isSlug, REFERENCE_SOURCES.map((s) => s.slug));
      return { body: page(choice(query, 'version', isApiVersion, SUPPORTED_API_VERSIONS)), contentType: 'text/html' };
    }
    if (rest === 'assets/configuration.js') return { body: CONFIGURATION_SCRIPT, contentType: 'text/javascript' };
    if (rest === 'assets/api-reference.js') {
      scalarBundle ??= readFile(SCALAR_BUNDLE, 'utf8');
      return { body: await scalarBundle, contentType: 'text/javascript' };
    }
    throw new AppError('NOT_FOUND', `The API reference has no file ${rest}.`);
  },
};
