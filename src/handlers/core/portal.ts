/**
 * The business portal (`GET /portal`): a page whose scripts are plain browser ES modules
 * from src/portal/assets/ (no build step) and Preact with htm (`htm/preact/standalone`),
 * served from node_modules as `/portal/assets/preact-htm.js`. The portal is a client of
 * the documented operations only: it signs in with `createToken` and keeps the token in
 * the page's memory. Its Content-Security-Policy allows this origin only, with no inline
 * script or style and no `eval`, so nothing reaches another origin.
 *
 * Asset names are looked up among the files present (a well-formed unknown name is 404
 * `NOT_FOUND`); a name never becomes a path by itself, so nothing outside the folder is served.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { operations } from '../../../generated/types/core.js';
import { SANDBOX_BUSINESS } from '../../businesses/sandboxDemo.js';
import { AppError } from '../../kernel/errors.js';
import type { OperationMap } from '../../http/operation.js';
import { PORTAL_ASSETS } from '../../paths.js';

type PortalOperations = Pick<operations, 'getPortal' | 'getPortalAsset' | 'getPortalPageAsset'>;

/**
 * Preact and htm in one ES module (exports html, render, useState, useEffect, …): the
 * package's `htm/preact/standalone` export for `import` (standalone.mjs, the same file as
 * its browser build standalone.module.js).
 */
const PREACT_HTM = fileURLToPath(import.meta.resolve('htm/preact/standalone'));

/** This origin only; no inline script or style, no eval, no framing, no form posts. */
export const PORTAL_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The page; `sandbox` adds the demo business's documented credentials for the sign-in form. */
function page(sandbox: boolean): string {
  const demo = sandbox ? ` data-demo-client-id="${SANDBOX_BUSINESS.clientId}" data-demo-client-secret="${SANDBOX_BUSINESS.secret}"` : '';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Business portal</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/portal/assets/style.css">
    <script type="module" src="/portal/assets/app.js"></script>
  </head>
  <body data-sandbox="${sandbox}"${demo}>
    <noscript>The business portal needs JavaScript.</noscript>
    <div id="app"></div>
  </body>
</html>
`;
}

/** The files of `dir` (relative to PORTAL_ASSETS) with the given extensions, read once. */
const listings = new Map<string, Promise<Set<string>>>();
function filesOf(dir: string): Promise<Set<string>> {
  let listing = listings.get(dir);
  if (!listing) {
    listing = readdir(path.join(PORTAL_ASSETS, dir), { withFileTypes: true }).then(
      (entries) => new Set(entries.filter((e) => e.isFile() && /\.(js|css)$/.test(e.name)).map((e) => e.name)),
    );
    listings.set(dir, listing);
  }
  return listing;
}

/** The asset `name` of folder `dir` with its media type; AppError NOT_FOUND when the portal has none. */
async function asset(dir: string, name: string): Promise<{ body: string; contentType: 'text/javascript' | 'text/css' }> {
  const contentType = name.endsWith('.css') ? 'text/css' : 'text/javascript';
  if (dir === '' && name === 'preact-htm.js') return { body: await readFile(PREACT_HTM, 'utf8'), contentType };
  if (!(await filesOf(dir)).has(name)) throw new AppError('NOT_FOUND', `The portal has no asset ${dir ? `${dir}/` : ''}${name}.`);
  return { body: await readFile(path.join(PORTAL_ASSETS, dir, name), 'utf8'), contentType };
}

export const portalOperations = {
  getPortal: {
    access: 'public',
    async handle({ koa, services }) {
      koa.set('Content-Security-Policy', PORTAL_CONTENT_SECURITY_POLICY);
      return { status: 200, body: page(services.config.sandbox), contentType: 'text/html' };
    },
  },
  getPortalAsset: {
    access: 'public',
    async handle({ koa, path: params }) {
      const { body, contentType } = await asset('', params.asset_name);
      koa.set('Content-Security-Policy', PORTAL_CONTENT_SECURITY_POLICY);
      return { status: 200, body, contentType };
    },
  },
  getPortalPageAsset: {
    access: 'public',
    async handle({ koa, path: params }) {
      const { body } = await asset('pages', params.page_name);
      koa.set('Content-Security-Policy', PORTAL_CONTENT_SECURITY_POLICY);
      return { status: 200, body, contentType: 'text/javascript' };
    },
  },
} satisfies OperationMap<PortalOperations>;
