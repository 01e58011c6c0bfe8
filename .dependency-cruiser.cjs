/**
 * Layering rules of src/ (checked by `npm run lint:layers`, part of `npm test`).
 * Layers point down only: handlers (the contract seam, one folder per document)
 * → capabilities (ledger, businesses, customers, payouts, cards, webhooks,
 * providers) → kernel and db. The HTTP layer (src/http) sits above the
 * capabilities too; nothing below it imports it.
 */
const CAPABILITIES = '^src/(ledger|businesses|customers|payouts|cards|webhooks|providers|kernel|jobs|db)/';

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
    {
      name: 'capabilities-not-http',
      severity: 'error',
      comment: 'Capability, kernel and db code must not import the HTTP layer or the handlers: they are above it.',
      from: { path: CAPABILITIES },
      to: { path: '^src/(http|handlers)/' },
    },
    {
      name: 'handlers-not-sql',
      severity: 'error',
      comment: 'Handlers are thin: they call capabilities, never the database layer or SQL directly.',
      from: { path: '^src/handlers/' },
      to: { path: ['^src/db/', '/sql/'] },
    },
    {
      name: 'kernel-not-capabilities',
      severity: 'error',
      comment: 'The shared kernel is below every capability.',
      from: { path: '^src/kernel/' },
      to: { path: '^src/(ledger|businesses|customers|payouts|cards|webhooks|providers|handlers|http)/' },
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
    exclude: { path: '^generated/' },
  },
};
