/**
 * Generates and sends the contract fuzz's requests and judges each answer: a time-out,
 * a 5xx, an answer the documents do not describe (status, media type, headers, body:
 * test/support/contract.ts), a body that is not the JSON it claims, or an answer that
 * breaks a promise of the documents' shared rules (./requests.ts `expect`) is a finding.
 * Generation is fast-check's, seeded: the same seed gives the same requests.
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { signCallback } from '../../../src/providers/signatures.js';
import { SIGNATURE_HEADER } from '../../../src/providers/signatures.js';
import { assertMatchesContract } from '../contract.js';
import { baseUrl, RESPONSES_FILE, TEST_CALLBACK_SECRETS, testConfig } from '../service.js';
import { forgedTokens } from './hostile.js';
import { fuzzOperations, mutations, toRequest, validDraft, type FuzzRequest } from './requests.js';
import type { FuzzWorld } from './world.js';

export interface Finding {
  request: FuzzRequest;
  status: number | null;
  problem: string;
}

export interface FuzzTotals {
  seed: number;
  operations: number;
  requests: number;
  /** Answers by status class (`2xx`, `4xx`, …). */
  classes: Record<string, number>;
  fiveXx: number;
  offSpec: number;
  timeouts: number;
  seconds: number;
  findings: Finding[];
}

/** FNV-1a of `text`, to derive one seed per operation and mutation from the run's seed. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Every request of a run: for each operation, `runs` documented requests and `runs`
 * requests per hostile mutation that applies to it, generated from `seed`.
 */
export async function generateRequests(world: FuzzWorld, seed: number, runs: number): Promise<FuzzRequest[]> {
  const forged = await forgedTokens(testConfig().jwtSecret!, { sub: `client-of-${world.business.id}`, kind: 'BUSINESS', bid: world.business.id });
  const out: FuzzRequest[] = [];
  for (const op of fuzzOperations()) {
    const valid = validDraft(op, world);
    const opSeed = (s: string): number => (seed ^ hash(`${op.document}#${op.operationId}#${s}`)) | 0;
    for (const draft of fc.sample(valid, { seed: opSeed('valid'), numRuns: runs })) out.push(toRequest(op, 'valid', draft));
    for (const [name, mutation] of Object.entries(mutations(op, world, forged))) {
      const mutated = valid.chain((draft) => mutation(draft).map((apply) => apply(draft)));
      for (const draft of fc.sample(mutated, { seed: opSeed(name), numRuns: runs })) out.push(toRequest(op, name, draft));
    }
  }
  return out;
}

const TIMEOUT_MS = 15_000;

/** Sends one request and returns its finding, if any. */
async function judge(req: FuzzRequest): Promise<{ status: number | null; finding?: Finding }> {
  // Concatenated, not resolved: a target starting with `//` must stay a path of this server.
  const url = new URL(`${baseUrl()}${req.target}`);
  if (url.origin !== new URL(baseUrl()).origin) throw new Error(`the fuzz only calls the service under test, not ${url.origin}`);
  const headers = { ...req.headers };
  if (req.signedBy) headers[SIGNATURE_HEADER.toLowerCase()] = signCallback(Buffer.from(TEST_CALLBACK_SECRETS[req.signedBy]), req.body ?? '');
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { method: req.method, headers, body: req.body, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
    text = await res.text();
  } catch (err) {
    const name = (err as Error).name;
    const problem = name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : `request failed: ${(err as Error).message} ${String((err as { cause?: unknown }).cause ?? '')}`;
    return { status: null, finding: { request: req, status: null, problem } };
  }
  const path = url.pathname;
  appendFileSync(RESPONSES_FILE, `${JSON.stringify({ method: req.method, path, status: res.status, text, sent: req.body })}\n`);
  const finding = (problem: string) => ({ status: res.status, finding: { request: req, status: res.status, problem } });
  let body: unknown = text;
  if (/json/.test(res.headers.get('content-type') ?? '') && text) {
    try {
      body = JSON.parse(text);
    } catch {
      return finding('the body is not the JSON its media type says');
    }
  }
  if (res.status >= 500) return finding(`${res.status}: ${text.slice(0, 300)}`);
  try {
    assertMatchesContract({ method: req.method, path, status: res.status, headers: res.headers, body });
  } catch (err) {
    return finding((err as Error).message);
  }
  const expected = req.expect;
  if (expected) {
    const problem = body as { code?: string; errors?: { pointer: string }[] };
    const broken =
      res.status !== expected.status ||
      (expected.codes && !expected.codes.includes(problem?.code ?? '')) ||
      (expected.pointer && !problem?.errors?.some((e) => e.pointer === expected.pointer));
    if (broken) return finding(`expected ${expected.status} ${expected.codes?.join('|') ?? ''} ${expected.pointer ?? ''}, got ${res.status}: ${text.slice(0, 300)}`);
  }
  return { status: res.status };
}

/** Sends `requests`, `concurrency` at a time, and adds up the findings. */
export async function runFuzz(requests: FuzzRequest[], seed: number, concurrency = 8): Promise<FuzzTotals> {
  const started = performance.now();
  const totals: FuzzTotals = { seed, operations: new Set(requests.map((r) => `${r.document}#${r.operationId}`)).size, requests: 0, classes: {}, fiveXx: 0, offSpec: 0, timeouts: 0, seconds: 0, findings: [] };
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const req = requests[next++];
      const { status, finding } = await judge(req);
      totals.requests += 1;
      const statusClass = status === null ? 'none' : `${String(status)[0]}xx`;
      totals.classes[statusClass] = (totals.classes[statusClass] ?? 0) + 1;
      if (status !== null && status >= 500) totals.fiveXx += 1;
      if (!finding) continue;
      totals.findings.push(finding);
      if (status === null) totals.timeouts += 1;
      else if (status < 500) totals.offSpec += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  totals.seconds = (performance.now() - started) / 1000;
  return totals;
}

/** The totals line: requests, 5xx, off-spec and time-outs, with the seed that replays the run. */
export function totalsLine(t: FuzzTotals): string {
  const classes = Object.entries(t.classes)
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return `contract fuzz: ${t.requests} requests over ${t.operations} operations in ${t.seconds.toFixed(1)} s, 5xx ${t.fiveXx}, off-spec ${t.offSpec}, time-outs ${t.timeouts} (FUZZ_SEED=${t.seed}; answers: ${classes})`;
}

/** The findings, one per operation, mutation and kind of problem, each with a request that shows it. */
export function describeFindings(findings: Finding[], max = 25): string {
  const seen = new Map<string, Finding & { count: number }>();
  for (const f of findings) {
    const kind = f.problem
      .split('\n')
      .filter((line) => line.trim().startsWith('- ') || !line.startsWith(' '))
      .map((line) => (line.startsWith('Response breaks') ? '' : line))
      .join(' ')
      .replace(/[0-9a-f-]{36}/g, '<id>')
      .replace(/\d+/g, 'N')
      .slice(0, 200);
    const key = `${f.request.operationId}|${f.request.mutation}|${kind}`;
    const entry = seen.get(key);
    if (entry) entry.count += 1;
    else seen.set(key, { ...f, count: 1 });
  }
  const lines = [...seen.values()].slice(0, max).map((f) => {
    const r = f.request;
    const headers = Object.entries(r.headers)
      .filter(([k]) => k !== 'authorization' || r.mutation.includes('token'))
      .map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 40)}…(${v.length} chars)` : v}`)
      .join('; ');
    const target = r.target.length > 160 ? `${r.target.slice(0, 120)}…(${r.target.length} chars)` : r.target;
    const body = r.body === undefined ? '' : ` body ${r.body.length > 120 ? `${r.body.slice(0, 100)}…(${r.body.length} chars)` : r.body}`;
    const problem = f.problem
      .split('\n')
      .slice(0, 4)
      .map((line) => (line.length > 300 ? `${line.slice(0, 280)}…(${line.length} chars)` : line))
      .join('\n      ');
    return `- ${r.operationId} [${r.mutation}] ×${f.count}: ${r.method} ${target} {${headers}}${body}\n    → ${problem}`;
  });
  const more = seen.size > max ? `\n… and ${seen.size - max} more kinds` : '';
  return `${lines.join('\n')}${more}`;
}
