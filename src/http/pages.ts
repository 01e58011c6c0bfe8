/**
 * The service's pages for people (src/kernel/servicePages.ts): the business portal and the
 * API reference page, each given by the module that owns it (src/portal/, src/docs/) and
 * mounted by the app (./app.ts) beside the API, outside its documents and their operation
 * routing. They pass through the app's request id, version negotiation, CORS and
 * problem-details errors like everything else; what they answer is theirs: a file of a page
 * media type with the page's Content-Security-Policy, or a problem (404 `NOT_FOUND` for a
 * file the page does not have, 400 `VALIDATION_ERROR` for a query value it refuses).
 */
import type { ParsedUrlQuery } from 'node:querystring';
import type { Middleware } from 'koa';
import { AppError } from '../kernel/errors.js';
import type { SERVICE_PAGE_ROOTS } from '../kernel/servicePages.js';

/** One file of a page: its text and media type. */
export interface PageFile {
  body: string;
  contentType: 'text/html' | 'text/javascript' | 'text/css';
}

/** A page of the service, served at its root and below. */
export interface ServicePage {
  /** Where it is served: the root itself (the page) and every path below it (its files). */
  root: (typeof SERVICE_PAGE_ROOTS)[number];
  /** The page's Content-Security-Policy, sent with each of its files. */
  contentSecurityPolicy: string;
  /**
   * The file at `rest`, the path below the root (`''` for the page itself, `assets/app.js`;
   * percent-decoded, without trailing slashes), given the request's `query`. Throws AppError
   * NOT_FOUND when the page has no such file, VALIDATION_ERROR for a query value it refuses.
   */
  file(rest: string, query: ParsedUrlQuery): Promise<PageFile>;
}

/** The path below `root` of `path` when `path` is `root` or under it, else undefined; NOT_FOUND when it does not decode. */
function below(root: string, path: string): string | undefined {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (trimmed !== root && !trimmed.startsWith(`${root}/`)) return undefined;
  try {
    return decodeURIComponent(trimmed.slice(root.length + 1));
  } catch {
    throw new AppError('NOT_FOUND', `Nothing at ${path}.`);
  }
}

/**
 * A middleware that answers the requests under each of `pages`' roots (GET, and HEAD, whose
 * body Koa leaves out; other methods 405 `METHOD_NOT_ALLOWED` with `Allow`), and hands every
 * other request on.
 */
export function servePages(pages: readonly ServicePage[]): Middleware {
  return async (ctx, next) => {
    for (const page of pages) {
      const rest = below(page.root, ctx.path);
      if (rest === undefined) continue;
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        throw new AppError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; use GET, HEAD.`, { headers: { Allow: 'GET, HEAD' } });
      }
      ctx.state.page = page.root; // the request's label in the metrics, where an operation has its operationId
      const { body, contentType } = await page.file(rest, ctx.query);
      ctx.set('Content-Security-Policy', page.contentSecurityPolicy);
      ctx.status = 200;
      ctx.type = contentType;
      ctx.body = body;
      return;
    }
    await next();
  };
}
