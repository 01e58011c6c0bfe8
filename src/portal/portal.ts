/**
 * The business portal (`GET /portal`), a page of the service served outside the API
 * documents (src/kernel/servicePages.ts): its scripts are plain browser ES modules from
 * src/portal/assets/ (no build step; the shell, the modules pages share, and `pages/`, where a
 * page of several modules is a folder: docs/portal.md) and Preact with htm (`htm/preact/standalone`), served from node_modules as
 * `/portal/assets/preact-htm.js`. The portal is a client of the documented operations only:
 * a portal user signs in with `createPortalSession`, whose HttpOnly cookie the browser keeps. Its
 * Content-Security-Policy allows this origin only, with no inline script or style and no
 * `eval`, so nothing reaches another origin.
 *
 * A file is looked up among the files present under src/portal/assets/ (`.js` and `.css`,
 * listed once); any other path is 404 `NOT_FOUND`. A requested path never becomes a path on
 * disk by itself, so nothing outside the folder is served.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SANDBOX_OWNER } from '../businesses/index.js';
import { AppError } from '../kernel/errors.js';
import type { PageFile, ServicePage } from '../http/pages.js';
import { PORTAL_ASSETS } from '../paths.js';
import type { Config } from '../kernel/serviceConfig.js';

/**
 * Preact and htm in one ES module (exports html, render, useState, useEffect, …): the
 * package's `htm/preact/standalone` export for `import` (standalone.mjs, the same file as
 * its browser build standalone.module.js).
 */
const PREACT_HTM = fileURLToPath(import.meta.resolve('htm/preact/standalone'));

/** This origin only; no inline script or style, no eval, no framing, no form posts. */
const PORTAL_CONTENT_SECURITY_POLICY = [
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

/**
 * otpauth's browser build (an ES module), served in the sandbox only as `otpauth.js`: the
 * sign-in form computes the demo owner's current code from its documented secret with it.
 */
const OTPAUTH = path.join(path.dirname(fileURLToPath(import.meta.resolve('otpauth'))), 'otpauth.esm.js');

/** The page; `sandbox` adds the demo owner's documented credentials for the sign-in form. */
function page(sandbox: boolean): string {
  const demo = sandbox
    ? ` data-demo-email="${SANDBOX_OWNER.email}" data-demo-password="${SANDBOX_OWNER.password}" data-demo-totp-secret="${SANDBOX_OWNER.totpSecret}"`
    : '';
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

/** The portal's files under `dir`, as paths below it with `/` separators (`pages/payouts/csv.js`). */
async function portalFiles(dir: string): Promise<Set<string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return new Set(
    entries.filter((e) => e.isFile() && /\.(js|css)$/.test(e.name)).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/')),
  );
}

/**
 * The portal, served at `/portal`: the page, and under `/portal/assets/` the files of
 * src/portal/assets/ (listed at the first request) and `preact-htm.js`. In the sandbox
 * (`config.sandbox`) the page carries the demo owner's credentials, and `otpauth.js` is served.
 */
export function portalPage({ sandbox }: Pick<Config, 'sandbox'>): ServicePage {
  let listing: Promise<Set<string>> | undefined;
  /** The asset `name` (a path below src/portal/assets/) with its media type; AppError NOT_FOUND when the portal has none. */
  const asset = async (name: string): Promise<PageFile> => {
    const contentType = name.endsWith('.css') ? 'text/css' : 'text/javascript';
    if (name === 'preact-htm.js') return { body: await readFile(PREACT_HTM, 'utf8'), contentType };
    if (name === 'otpauth.js' && sandbox) return { body: await readFile(OTPAUTH, 'utf8'), contentType };
    listing ??= portalFiles(PORTAL_ASSETS);
    if (!(await listing).has(name)) throw new AppError('NOT_FOUND', `The portal has no asset ${name}.`);
    return { body: await readFile(path.join(PORTAL_ASSETS, ...name.split('/')), 'utf8'), contentType };
  };
  return {
    root: '/portal',
    contentSecurityPolicy: PORTAL_CONTENT_SECURITY_POLICY,
    async file(rest) {
      if (rest === '') return { body: page(sandbox), contentType: 'text/html' };
      if (rest.startsWith('assets/')) return asset(rest.slice('assets/'.length));
      throw new AppError('NOT_FOUND', `The portal has no page ${rest}.`);
    },
  };
}
