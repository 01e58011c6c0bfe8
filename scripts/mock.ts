/**
 * `npm run mock`: a mock of the whole service from the bundled documents,
 * with the service's URL shape: closed-loop under /cl/v1, core at the root.
 *
 * Prism (@stoplight/prism-cli) serves one document per process and matches
 * paths without any `servers` base path (relative or absolute, with or without
 * variables), so each document gets its own Prism on a free loopback port, and
 * a small front on MOCK_PORT (default 4010) sends /cl/v1/... to the
 * closed-loop Prism with /cl/v1 stripped, and everything else to the core one.
 *
 *   npm run mock                  examples from the documents
 *   npm run mock -- --dynamic     answers generated from the schemas
 *   Prefer: dynamic=true | code=404 | example=<name>   per request
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../src/db/embedded.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const PRISM = path.join(ROOT, 'node_modules/.bin/prism');
const CLOSED_LOOP_ROOT = '/cl/v1';

export interface MockOptions {
  /** Port of the front; 0 picks a free one. */
  port?: number;
  /** Generate every answer from the schemas instead of the examples. */
  dynamic?: boolean;
  /** Seed for the generated answers (the same seed gives the same answers). */
  seed?: string;
  /** No output from Prism or the front. */
  quiet?: boolean;
  /** Other files than generated/openapi/{closed-loop,core}.json. */
  documents?: { 'closed-loop': string; core: string };
}

export interface RunningMock {
  /** Base URL of the front, e.g. http://127.0.0.1:4010 */
  url: string;
  close(): Promise<void>;
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true)).once('error', () => done(false)).setTimeout(2_000, () => done(false));
  });
}

/** Starts Prism on `document` and resolves once it accepts connections. */
async function startPrism(document: string, opts: MockOptions): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const args = ['mock', document, '--host', '127.0.0.1', '--port', String(port), '--json-schema-faker-fillProperties=false'];
  args.push('--verboseLevel', opts.quiet ? 'silent' : 'warn');
  if (opts.dynamic) args.push('--dynamic');
  if (opts.seed) args.push('--seed', opts.seed);
  const child = spawn(PRISM, args, { cwd: ROOT, stdio: opts.quiet ? 'ignore' : ['ignore', 'inherit', 'inherit'] });
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`Prism exited before serving ${document}`);
    if (await listening(port)) return { port, child };
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`Prism did not start serving ${document} within 90 s`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Which Prism serves `url` (a request path with query), and the path to ask it for. */
export function route(url: string): { document: 'closed-loop' | 'core'; path: string } {
  if (url === CLOSED_LOOP_ROOT || url.startsWith(`${CLOSED_LOOP_ROOT}/`) || url.startsWith(`${CLOSED_LOOP_ROOT}?`)) {
    const rest = url.slice(CLOSED_LOOP_ROOT.length);
    return { document: 'closed-loop', path: rest.startsWith('/') ? rest : `/${rest}` };
  }
  return { document: 'core', path: url };
}

/** Starts both Prism servers and the front; `close()` stops all three. */
export async function startMock(opts: MockOptions = {}): Promise<RunningMock> {
  const documents = opts.documents ?? {
    'closed-loop': path.join(ROOT, 'generated/openapi/closed-loop.json'),
    core: path.join(ROOT, 'generated/openapi/core.json'),
  };
  const started = await Promise.allSettled([startPrism(documents['closed-loop'], opts), startPrism(documents.core, opts)]);
  const prisms = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    for (const p of prisms) p.child.kill();
    throw failed.reason;
  }
  const ports = { 'closed-loop': prisms[0].port, core: prisms[1].port };

  const front = http.createServer((req, res) => {
    const target = route(req.url ?? '/');
    const upstream = http.request(
      { host: '127.0.0.1', port: ports[target.document], method: req.method, path: target.path, headers: req.headers },
      (answer) => {
        if (!opts.quiet) console.log(`${req.method} ${req.url} → ${answer.statusCode} (${target.document})`);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`mock: ${target.document} Prism did not answer: ${err.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(opts.port ?? 4010, '127.0.0.1', resolve));
  const { port } = front.address() as net.AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      front.closeAllConnections();
      await new Promise((resolve) => front.close(resolve));
      await Promise.all(
        prisms.map(({ child }) =>
          child.exitCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM')),
        ),
      );
    },
  };
}

async function main(): Promise<void> {
  const mock = await startMock({ port: Number(process.env.MOCK_PORT ?? 4010), dynamic: process.argv.includes('--dynamic') });
  const base = mock.url.replace('127.0.0.1', 'localhost');
  console.log(`Mock of the wallet service (Prism) on ${base}`);
  console.log(`  closed-loop: ${base}/cl/v1/...   core: ${base}/...`);
  console.log(`  e.g. curl -s ${base}/cl/v1/labels -H 'Authorization: Bearer any' -H 'Prefer: dynamic=true'`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void mock.close().then(() => process.exit(0)));
  }
}

// No top-level await: the tests import this module, and mocha loads test files with require().
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
