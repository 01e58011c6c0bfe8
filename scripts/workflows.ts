/**
 * Runs the Arazzo workflows (every workflows/*.arazzo.yaml: the quickstart, onboarding,
 * payouts and cards) against a running service with `redocly respect`: every step's
 * status, success criteria and response schema are checked; exits non-zero when a step
 * fails. The workflows use the sandbox's test helpers, so the service runs with
 * SANDBOX=true (the default).
 *
 *   tsx scripts/workflows.ts [--base http://localhost:3000] [respect options...]
 *
 * `--base` is the service's scheme, host and port (the closed-loop document's server is
 * `<base>/cl/v1`, the core one's `<base>`: the source descriptions `closedLoop` and `core`
 * of every workflow file); other options go to `redocly respect` (e.g. `--workflow payout`).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const at = args.indexOf('--base');
const base = (at >= 0 ? args.splice(at, 2)[1] : process.env.BASE || 'http://localhost:3000').replace(/\/$/, '');
const files = readdirSync(path.join(ROOT, 'workflows'))
  .filter((f) => f.endsWith('.arazzo.yaml'))
  .map((f) => path.join('workflows', f));
const result = spawnSync(
  path.join(ROOT, 'node_modules', '.bin', 'redocly'),
  ['respect', ...files, '--server', `closedLoop=${base}/cl/v1,core=${base}`, ...args],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' } },
);
process.exit(result.status ?? 1);
