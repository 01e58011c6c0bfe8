/**
 * The service's pages for people: the business portal (`/portal`, src/portal/) and the API
 * reference page (`/docs`, src/docs/). They are HTML pages and the static files those pages
 * load, served at these roots by the HTTP app beside the API, outside the API documents: the
 * documents describe the API that clients and SDKs call, and no SDK calls a page.
 *
 * Read by the contract gate (scripts/api/rules.ts: an operation that was one of these pages
 * may leave the documents) and by the test harness (test/support/contract.ts: a response
 * under these roots is checked as a page, not as an operation).
 */

/** The paths each page is served under, from the service's root (`/portal`, `/portal/…`). */
export const SERVICE_PAGE_ROOTS = ['/portal', '/docs'] as const;

/** The media types of a page and of the files it loads (HTML, ES modules and scripts, style sheets). */
export const PAGE_MEDIA_TYPES: readonly string[] = ['text/html', 'text/javascript', 'text/css'];

/** Whether `path` (a request path from the service's root) is one of the service's pages or their files. */
export function isServicePage(path: string): boolean {
  return SERVICE_PAGE_ROOTS.some((root) => path === root || path.startsWith(`${root}/`));
}
