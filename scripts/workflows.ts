/**
 * Runs the Arazzo workflows (workflows/*.arazzo.yaml) against a running service with
 * `redocly respect`: every step's status, success criteria and response schema are
 * checked; exits non-zero when a step fails.
 *
 *   tsx scripts/workflows.ts [--base http://localhost:3000] [respect options...]
 *
 * `--base` is the service's scheme, host and port (the closed-loop document's server is
 * `<base>/cl/v1`, the core one's `<base>`); other options go to `redocly respect`.
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
  ['respect', ...files, '--server', `closedLoop=${base}/cl/v1`, ...args],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' } },
);
process.exit(result.status ?? 1);
