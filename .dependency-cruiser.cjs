/**
 * Layering rules of src/ (checked by `npm run lint:layers`, part of `npm test`).
 * Layers point down only:
 *   handlers (the contract seam, one folder per document), the service's pages for
 *     people (portal, docs: outside the documents) and http, wired together by
 *     src/server.ts
 *   → the capabilities that serve the parties, side by side: payouts, cards, webhooks.
 *     None imports another: what two of them share lives below.
 *   → the parties, side by side: businesses and customers. They import no capability.
 *   → the shared layers below them: ledger, providers, events, audit, kernel, jobs, db. They
 *     import no capability, no http and no handlers; events (the event outbox) imports
 *     neither the ledger nor the providers; the kernel imports neither events, the ledger
 *     nor the providers (it declares an interface where it needs one, and a room above
 *     satisfies it).
 * Nothing below src/http imports it. The top-level modules src/config.ts (reads the
 * configuration), src/log.ts and src/paths.ts may be imported by any layer, and
 * import only the kernel and db.
 */
const PARTY_NAMES = ['businesses', 'customers'];
const CAPABILITY_NAMES = ['payouts', 'cards', 'webhooks', ...PARTY_NAMES];
const BELOW = '^src/(ledger|providers|events|audit|kernel|jobs|db)/';
/** The rooms entered through a face (src/<room>/index.ts): the capabilities, and the audit log below them. */
const FACED_NAMES = [...CAPABILITY_NAMES, 'audit'];
/** The top floor beside the HTTP layer: what only the assembly (src/server.ts) imports. */
const TOP = 'http|handlers|portal|docs';

/** A rule that the rooms `names` sit side by side: none imports another (each imports its own room). */
function sideBySide(name, names, comment) {
  const rooms = `^src/(${names.join('|')})/`;
  return { name, severity: 'error', comment, from: { path: rooms }, to: { path: rooms, pathNot: '^src/$1/' } };
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle makes the load order and the layering ambiguous.',
      from: {},
      to: { circular: true },
    },
    sideBySide('capabilities-side-by-side', ['payouts', 'cards', 'webhooks'], 'Payouts, cards and webhooks import none of each other: shared code lives below them (the parties, the ledger, providers, events, kernel, jobs or db).'),
    {
      name: 'parties-below-capabilities',
      severity: 'error',
      comment: 'Businesses and customers import no capability, nor each other: payouts, cards and webhooks stand on them.',
      from: { path: `^src/(${PARTY_NAMES.join('|')})/` },
      to: { path: `^src/(${CAPABILITY_NAMES.join('|')})/`, pathNot: '^src/$1/' },
    },
    {
      name: 'below-not-capabilities',
      severity: 'error',
      comment: 'The ledger, providers, events, kernel, jobs and db sit below the capabilities, the HTTP layer, the handlers and the pages.',
      from: { path: BELOW },
      to: { path: `^src/(${CAPABILITY_NAMES.join('|')}|${TOP})/` },
    },
    {
      name: 'capabilities-not-http',
      severity: 'error',
      comment: 'Capability code must not import the HTTP layer, the handlers or the pages: they are above it.',
      from: { path: `^src/(${CAPABILITY_NAMES.join('|')})/` },
      to: { path: `^src/(${TOP})/` },
    },
    {
      name: 'http-not-handlers',
      severity: 'error',
      comment: 'The HTTP layer mounts the operations and pages src/server.ts gives it; it imports no handler and no page.',
      from: { path: '^src/http/' },
      to: { path: '^src/(handlers|portal|docs)/' },
    },
    sideBySide('pages-beside-handlers', ['handlers', 'portal', 'docs'], "The service's pages (portal, docs) and the handlers sit side by side on the top floor: none imports another; src/server.ts wires each in."),
    {
      name: 'faces-only',
      severity: 'error',
      comment: "A capability is entered through its face (src/<capability>/index.ts, src/kernel/capability.ts): from outside its folder nothing imports another of its modules.",
      from: { path: '^src/([^/]+)' },
      to: { path: `^src/(${FACED_NAMES.join('|')})/`, pathNot: ['^src/$1/', `^src/(${FACED_NAMES.join('|')})/index\\.ts$`] },
    },
    {
      name: 'handlers-not-sql',
      severity: 'error',
      comment: 'Handlers are thin, and pages serve files: they call capabilities, never the database layer or SQL directly.',
      from: { path: '^src/(handlers|portal|docs)/' },
      to: { path: ['^src/db/', '/sql/'] },
    },
    {
      name: 'events-not-ledger-or-providers',
      severity: 'error',
      comment: 'The event outbox is below the ledger and the providers: the ledger records its events through it.',
      from: { path: '^src/events/' },
      to: { path: '^src/(ledger|providers)/' },
    },
    {
      name: 'audit-low',
      severity: 'error',
      comment: 'The audit log is recorded from the HTTP edge for every room: it stands on the kernel, jobs and db alone.',
      from: { path: '^src/audit/' },
      to: { path: '^src/', pathNot: '^src/(audit|kernel|jobs|db)/|^src/(config|log|paths)\\.ts$' },
    },
    {
      name: 'kernel-not-events-ledger-or-providers',
      severity: 'error',
      comment: 'The shared kernel is below events, the ledger and the providers: it declares an interface where it needs one of theirs.',
      from: { path: '^src/kernel/' },
      to: { path: '^src/(events|ledger|providers)/' },
    },
    {
      name: 'top-level-modules-low',
      severity: 'error',
      comment: 'src/config.ts, src/log.ts and src/paths.ts are read by every layer, so they import only the kernel and db.',
      from: { path: '^src/(config|log|paths)\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(kernel|db)/|^src/(config|log|paths)\\.ts$' },
    },
    {
      name: 'src-not-tests',
      severity: 'error',
      comment: 'Service code never imports test or script code.',
      from: { path: '^src/' },
      to: { path: '^(test|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The portal's browser files are plain ES modules served as they are (their imports are
    // URLs the browser resolves, such as ../preact-htm.js), not part of the service's modules.
    exclude: { path: ['^generated/', '^src/portal/assets/'] },
  },
};
