/**
 * Requests of the contract fuzz, generated with fast-check for every operation of both
 * bundled documents. A request starts as one its operation documents (path, query,
 * header parameters and body generated from their schemas; ids, account and mobile
 * numbers mostly those of real resources, ./world.ts; the right token or provider
 * signature), then at most one hostile mutation is applied (MUTATIONS). Some mutations
 * come with the answer the documents' shared rules promise (`expect`): an unsupported
 * `X-API-Version` is 400 UNSUPPORTED_API_VERSION, an unknown query parameter 400
 * VALIDATION_ERROR naming it, a missing or broken credential 401, a token of the wrong
 * kind 403.
 */
import fc from 'fast-check';
import { loadBundledDocument } from '../../../src/http/apiBuild.js';
import { SIGNATURE_SCHEMES } from '../../../src/http/signatures.js';
import { SUPPORTED_API_VERSIONS } from '../../../src/http/versions.js';
import { accessOf } from '../operations.js';
import { anyJsonType, badApiVersion, badPercent, brokenAuthorization, latin1Header, longAscii, malformedJson, unicodeEdge } from './hostile.js';
import { arbitraryOf, resolver, type Override, type Schema } from './schemaArbitrary.js';
import { DEAD_LOOPBACK_URL, type FuzzWorld } from './world.js';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

/** One operation of a bundled document, as the fuzz calls it. */
export interface FuzzOperation {
  document: 'closed-loop' | 'core';
  doc: Schema;
  operationId: string;
  method: string;
  /** Path template with the API prefix. */
  template: string;
  access: string;
  /** The provider whose signature the operation requires (provider callbacks). */
  signedBy?: (typeof SIGNATURE_SCHEMES)[string];
  parameters: Parameter[];
  body?: { schema: Schema; mediaTypes: string[]; example?: unknown };
}

/** The JSON (else the first) request body schema of an operation, and its first documented example. */
function bodyOf(content: Record<string, Schema>, resolve: (n: Schema | undefined) => Schema): { schema: Schema; example?: unknown } {
  const media = content['application/json'] ?? Object.values(content)[0];
  const named = Object.values<Schema>(media.examples ?? {})[0];
  return { schema: media.schema, example: media.example ?? (named ? resolve(named).value : undefined) };
}

/** `value` with every field named like a real resource's (./world.ts) holding that resource's value. */
function withRealValues(value: unknown, world: FuzzWorld, name = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => withRealValues(v, world, name));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRealValues(v, world, k)]));
  const real = name === 'session_id' ? world.sessions.display : world.values.get(name);
  return typeof value === 'string' && real?.length ? real[0] : value;
}

/** Every operation of both bundled documents. */
export function fuzzOperations(): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [document, prefix] of [['closed-loop', '/cl/v1'], ['core', '']] as const) {
    const doc = loadBundledDocument(document) as Schema;
    const resolve = resolver(doc);
    for (const [path, item] of Object.entries<Schema>(doc.paths)) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
        const op = item[method];
        if (!op) continue;
        const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => {
          const param = resolve(p);
          return { name: param.name, in: param.in, required: Boolean(param.required), schema: resolve(param.schema) } as Parameter;
        });
        const content = resolve(op.requestBody).content as Record<string, { schema: Schema }> | undefined;
        const security = (op.security ?? doc.security ?? []) as Record<string, unknown>[];
        out.push({
          document,
          doc,
          operationId: op.operationId,
          method: method.toUpperCase(),
          template: prefix + path,
          access: accessOf(op.operationId),
          signedBy: SIGNATURE_SCHEMES[Object.keys(security[0] ?? {})[0]],
          parameters,
          body: content ? { ...bodyOf(content, resolve), mediaTypes: Object.keys(content) } : undefined,
        });
      }
    }
  }
  return out;
}

/** What the documents' shared rules promise for a request, checked besides the contract. */
export interface Expectation {
  status: number;
  /** One of these codes (any when absent). */
  codes?: string[];
  /** A field error naming this pointer. */
  pointer?: string;
}

/** A request being built: path parameters and query already percent-encoded, headers in lower case. */
export interface Draft {
  method: string;
  template: string;
  pathValues: Record<string, string>;
  /** Text appended to the path (after the template). */
  pathSuffix: string;
  query: [string, string][];
  headers: Record<string, string>;
  /** A JSON value to send, or raw text (`raw`). */
  body?: { json: unknown } | { raw: string };
  /** Sign the final body as the operation's provider (at send time: the signature holds a timestamp). */
  sign: boolean;
  expect?: Expectation;
}

/** A request ready to send. */
export interface FuzzRequest {
  document: FuzzOperation['document'];
  operationId: string;
  mutation: string;
  method: string;
  /** Path and query, percent-encoded. */
  target: string;
  headers: Record<string, string>;
  body?: string;
  signedBy?: FuzzOperation['signedBy'];
  expect?: Expectation;
}

const isBodyMethod = (method: string) => method !== 'GET';

/** Which real `session_id`s belong to a path. */
function sessionsFor(template: string, world: FuzzWorld): string[] {
  if (template.startsWith('/onboarding/')) return world.sessions.onboarding;
  if (template.startsWith('/profile/')) return world.sessions.profile;
  if (template.startsWith('/login/')) return world.sessions.login;
  return world.sessions.cardSteps;
}

/** Real values for a parameter or field, mostly; the schema's own values sometimes (never for `url`: webhook URLs stay on the loopback). */
function realOrSchema(name: string, schema: Schema, op: FuzzOperation, world: FuzzWorld, real: string[] | undefined): fc.Arbitrary<unknown> | undefined {
  if (name === 'url') return fc.constant(DEAD_LOOPBACK_URL);
  if (!real?.length) return undefined;
  return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: arbitraryOf(schema, op.doc) });
}

/** Body fields get real values by name (`wallet_id`, `customer_id`, `session_id` of E6, …). */
const bodyOverride = (op: FuzzOperation, world: FuzzWorld): Override => (name, schema) =>
  realOrSchema(name, schema, op, world, name === 'session_id' ? world.sessions.display : world.values.get(name));

function tokenFor(op: FuzzOperation, world: FuzzWorld): string | undefined {
  if (op.access === 'platform') return world.platformToken;
  if (op.access === 'public' || op.access === 'signature') return undefined;
  // Requests that change a whole business's sandbox go to a business of their own.
  if (['advanceSandboxClock', 'createSandboxProviderOutage'].includes(op.operationId)) return world.sandboxBusiness.token;
  return world.business.token;
}

/** The arbitrary of requests `op` documents, with real ids and the right credentials. */
export function validDraft(op: FuzzOperation, world: FuzzWorld): fc.Arbitrary<Draft> {
  const pathArbs: Record<string, fc.Arbitrary<string>> = {};
  const queryArbs: Record<string, fc.Arbitrary<unknown>> = {};
  const headerArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of op.parameters) {
    if (p.in === 'path') {
      const real = p.name === 'session_id' ? sessionsFor(op.template, world) : world.values.get(p.name);
      pathArbs[p.name] = (realOrSchema(p.name, p.schema, op, world, real) ?? arbitraryOf(p.schema, op.doc)).map((v) => encodeURIComponent(String(v)));
    } else if (p.in === 'query') {
      queryArbs[p.name] = realOrSchema(p.name, p.schema, op, world, world.values.get(p.name)) ?? arbitraryOf(p.schema, op.doc);
    } else if (p.in === 'header') {
      const lower = p.name.toLowerCase();
      if (lower === 'x-api-version') headerArbs[lower] = fc.constantFrom(...SUPPORTED_API_VERSIONS);
      else headerArbs[lower] = lower.includes('idempotency') ? fc.uuid() : arbitraryOf(p.schema, op.doc);
    }
  }
  const required = (where: string) => op.parameters.filter((p) => p.in === where && p.required).map((p) => (where === 'header' ? p.name.toLowerCase() : p.name));
  const form = op.body?.mediaTypes.includes('application/x-www-form-urlencoded') ?? false;
  // Generated from the schema, or (as often) the documented example aimed at the real resources: most of those succeed.
  const generated = arbitraryOf(op.body?.schema, op.doc, bodyOverride(op, world));
  const example = op.body?.example === undefined ? undefined : fc.constant(withRealValues(op.body.example, world));
  const bodyArb: fc.Arbitrary<Draft['body']> = op.body
    ? fc.tuple(example ? fc.oneof(generated, example) : generated, fc.boolean()).map(([json, asForm]) =>
        form && asForm && json && typeof json === 'object' ? { raw: new URLSearchParams(Object.entries(json).map(([k, v]) => [k, String(v)])).toString() } : { json },
      )
    : fc.constant(undefined);
  const token = tokenFor(op, world);
  return fc
    .record({
      pathValues: fc.record(pathArbs),
      query: fc.record(queryArbs, { requiredKeys: required('query') }),
      headers: fc.record(headerArbs, { requiredKeys: required('header') }),
      body: bodyArb,
    })
    .map(({ pathValues, query, headers, body }) => {
      const all: Record<string, string> = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)]));
      if (token) all.authorization = `Bearer ${token}`;
      if (body) all['content-type'] = 'raw' in body ? 'application/x-www-form-urlencoded' : 'application/json';
      return {
        method: op.method,
        template: op.template,
        pathValues,
        pathSuffix: '',
        query: Object.entries(query).map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(String(v))] as [string, string]),
        headers: all,
        body,
        sign: Boolean(op.signedBy),
      };
    });
}

/** A mutation: a function of a valid draft. */
type Mutation = fc.Arbitrary<(d: Draft) => Draft>;

const HEADERS_TO_LENGTHEN = ['x-api-version', 'x-request-id', 'idempotency-key', 'authorization', 'content-type', 'accept', 'x-provider-signature', 'origin', 'x-fuzz-unknown'];

/** Query parameter names no operation documents (and a few that tempt a parser). */
const unknownName = fc.oneof(
  fc.constantFrom('foo', '__proto__', 'constructor', 'toString', 'limit[]', 'a.b', 'x-api-version', 'LIMIT', 'Cursor'),
  fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_'), minLength: 1, maxLength: 12 }).map((s) => `zz_${s}`),
);

/** A string field of a JSON body (top level), or a new one. */
function bodyField(d: Draft): fc.Arbitrary<string> {
  const json = d.body && 'json' in d.body ? d.body.json : undefined;
  const keys = json && typeof json === 'object' && !Array.isArray(json) ? Object.keys(json) : [];
  return keys.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: fc.constant('zz_unknown') }) : fc.constant('name');
}

/** Sets field `key` of a JSON object body to `value` (a body of another shape becomes `{key: value}`). */
function withField(d: Draft, key: string, value: unknown): Draft {
  const json = d.body && 'json' in d.body ? d.body.json : undefined;
  const base = json && typeof json === 'object' && !Array.isArray(json) ? json : {};
  return { ...d, body: { json: { ...base, [key]: value } }, headers: { ...d.headers, 'content-type': 'application/json' } };
}

/** Replaces a path parameter (or, without one, appends a segment) with `encoded`. */
function withPathValue(d: Draft, encoded: string, pick: number): Draft {
  const names = Object.keys(d.pathValues);
  if (!names.length) return { ...d, pathSuffix: `/${encoded}` };
  return { ...d, pathValues: { ...d.pathValues, [names[pick % names.length]]: encoded } };
}

/** The hostile mutations that apply to `op`, by name. */
export function mutations(op: FuzzOperation, world: FuzzWorld, forged: string[]): Record<string, (d: Draft) => Mutation> {
  const known = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
  const secured = op.access !== 'public';
  const bodyMethod = isBodyMethod(op.method);
  const out: Record<string, (d: Draft) => Mutation> = {
    'long-header': () =>
      fc.tuple(fc.constantFrom(...HEADERS_TO_LENGTHEN), longAscii).map(([name, value]) => (d: Draft) => ({
        ...d,
        headers: { ...d.headers, [name]: name === 'authorization' ? `Bearer ${value}` : value },
      })),
    'long-query': () =>
      fc.tuple(fc.constantFrom(...known, 'zz_long'), longAscii, fc.boolean()).map(([name, value, longName]) => (d: Draft) => ({
        ...d,
        query: [...d.query, longName ? [encodeURIComponent(value), '1'] : [name, encodeURIComponent(value)]],
      })),
    'long-path': () => fc.tuple(longAscii, fc.nat()).map(([value, pick]) => (d: Draft) => withPathValue(d, encodeURIComponent(value), pick)),
    'unknown-query': () =>
      fc.tuple(unknownName.filter((n) => !known.includes(n)), fc.string({ maxLength: 10 })).map(([name, value]) => (d: Draft) => ({
        ...d,
        query: [...d.query, [encodeURIComponent(name), encodeURIComponent(value)]],
        // '__proto__' and friends must be refused like any other unknown name.
        expect: { status: 400, codes: ['VALIDATION_ERROR'], pointer: `/query/${name.replace(/~/g, '~0').replace(/\//g, '~1')}` },
      })),
    'empty-query': () =>
      fc.tuple(fc.constantFrom(...known, ''), fc.constantFrom('', '=', '&', '&&', '==', '=x')).map(([name, tail]) => (d: Draft) => ({
        ...d,
        query: [...d.query.filter(([k]) => k !== name), [name, ''], ...(tail ? [[tail, ''] as [string, string]] : [])],
        // A documented parameter sent without a value is refused, naming it.
        expect: name ? { status: 400, codes: ['VALIDATION_ERROR'], pointer: `/query/${name}` } : undefined,
      })),
    'duplicate-query': () =>
      fc.tuple(fc.constantFrom(...known, 'zz_twice'), fc.string({ maxLength: 5 })).map(([name, value]) => (d: Draft) => ({
        ...d,
        query: [...d.query.filter(([k]) => k !== name), [name, encodeURIComponent(value)], [name, encodeURIComponent(value)]],
        // A parameter sent twice is refused, naming it (whichever it is).
        expect: { status: 400, codes: ['VALIDATION_ERROR'], pointer: `/query/${name}` },
      })),
    'api-version': () =>
      badApiVersion.map((value) => (d: Draft) => {
        // HTTP strips the spaces and tabs around a field value.
        const sent = value.replace(/^[ \t]+|[ \t]+$/g, '');
        const supported = (SUPPORTED_API_VERSIONS as readonly string[]).includes(sent);
        return { ...d, headers: { ...d.headers, 'x-api-version': value }, expect: supported ? undefined : { status: 400, codes: ['UNSUPPORTED_API_VERSION'] } };
      }),
    'header-latin1': () =>
      fc.tuple(fc.constantFrom('x-api-version', 'x-request-id', 'idempotency-key', 'content-type', 'x-provider-signature'), latin1Header).map(([name, value]) => (d: Draft) => ({
        ...d,
        headers: { ...d.headers, [name]: value },
      })),
    'wrong-type-query': () =>
      fc.tuple(fc.constantFrom(...known, 'limit'), fc.constantFrom('abc', '1.5', '-1', '0', '1e309', 'NaN', 'true', '[]', '{}', '%00', '9'.repeat(30))).map(([name, value]) => (d: Draft) => ({
        ...d,
        query: [...d.query.filter(([k]) => k !== name), [name, value]],
      })),
    unicode: (d) =>
      fc.oneof(
        fc.tuple(bodyMethod && op.body ? bodyField(d) : fc.constant(''), unicodeEdge).map(([key, value]) => (x: Draft) => (key ? withField(x, key, value) : x)),
        fc.tuple(fc.constantFrom(...known, 'zz_text'), fc.oneof(unicodeEdge.map(encodeURIComponent), badPercent)).map(([name, value]) => (x: Draft): Draft => ({
          ...x,
          query: [...x.query.filter(([k]) => k !== name), [name, value]],
        })),
        fc.tuple(fc.oneof(unicodeEdge.map(encodeURIComponent), badPercent), fc.nat()).map(([value, pick]) => (x: Draft) => withPathValue(x, value, pick)),
      ),
    method: () =>
      fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE').filter((m) => m !== op.method).map((method) => (d: Draft) => ({
        ...d,
        method,
        body: method === 'GET' ? undefined : d.body,
      })),
  };
  if (bodyMethod) {
    out['long-body'] = (d) =>
      fc.tuple(bodyField(d), longAscii, fc.boolean(), fc.boolean()).map(([key, value, asKey, wide]) => (x: Draft) => {
        const text = wide ? 'é'.repeat(value.length) : value;
        return asKey ? withField(x, text, 'x') : withField(x, key, text);
      });
    out['wrong-type'] = (d) =>
      fc.tuple(bodyField(d), anyJsonType, fc.boolean()).map(([key, value, whole]) => (x: Draft) =>
        whole ? { ...x, body: { json: value }, headers: { ...x.headers, 'content-type': 'application/json' } } : withField(x, key, value),
      );
    out['malformed-json'] = () =>
      malformedJson.map((raw) => (d: Draft) => ({ ...d, body: { raw }, headers: { ...d.headers, 'content-type': 'application/json' } }));
    out['content-type'] = () =>
      fc
        .constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded', 'application/merge-patch+json', 'application/problem+json', '*/*', 'json', ';;')
        .map((type) => (d: Draft) => ({ ...d, body: d.body ?? { raw: '{}' }, headers: { ...d.headers, 'content-type': type } }));
  }
  if (secured) {
    const code = op.signedBy ? ['INVALID_SIGNATURE', 'SIGNATURE_EXPIRED'] : ['UNAUTHORIZED'];
    out['no-token'] = () =>
      fc.constant((d: Draft) => {
        const { authorization: _, ...headers } = d.headers;
        return { ...d, headers, sign: false, expect: { status: 401, codes: code } };
      });
    out['bad-token'] = () =>
      (op.signedBy
        ? fc.oneof(
            fc.constantFrom('', 't=1,v1=00', 'v1=abc', 't=,v1=', `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`),
            longAscii,
          ).map((value) => (d: Draft) => ({ ...d, sign: false, headers: { ...d.headers, 'x-provider-signature': value }, expect: { status: 401, codes: code } }))
        : brokenAuthorization(forged).map((value) => (d: Draft) => ({ ...d, headers: { ...d.headers, authorization: value }, expect: { status: 401, codes: code } })));
  }
  if (op.access === 'business' || op.access === 'platform') {
    const other = op.access === 'business' ? world.platformToken : world.business.token;
    out['wrong-token-kind'] = () =>
      fc.constant((d: Draft) => ({ ...d, headers: { ...d.headers, authorization: `Bearer ${other}` }, expect: { status: 403, codes: ['FORBIDDEN'] } }));
  }
  return out;
}

/** Every http(s) URL in a JSON value, moved onto the dead loopback address: the fuzz never makes the service call out. */
function loopbackOnly(value: unknown): unknown {
  if (typeof value === 'string') {
    if (!/^https?:/i.test(value) || !URL.canParse(value)) return value;
    const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
    return ['127.0.0.1', 'localhost', '::1'].includes(host) ? value : DEAD_LOOPBACK_URL;
  }
  if (Array.isArray(value)) return value.map(loopbackOnly);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, loopbackOnly(v)]));
  return value;
}

/** The body text of a draft, with every URL it holds kept on the loopback. */
function bodyText(body: Draft['body']): string | undefined {
  if (!body) return undefined;
  if ('json' in body) return JSON.stringify(loopbackOnly(body.json)) ?? 'null';
  try {
    const parsed = JSON.parse(body.raw) as unknown;
    const kept = loopbackOnly(parsed);
    return JSON.stringify(kept) === JSON.stringify(parsed) ? body.raw : JSON.stringify(kept);
  } catch {
    return /https?:/i.test(body.raw) ? body.raw.replace(/https?:/gi, 'no:') : body.raw;
  }
}

/** The request a draft stands for. */
export function toRequest(op: FuzzOperation, mutation: string, d: Draft): FuzzRequest {
  const path = d.template.replace(/\{([^}]+)\}/g, (_, name: string) => d.pathValues[name] ?? '') + d.pathSuffix;
  const query = d.query.map(([k, v]) => (v === '' && k === '' ? '' : `${k}=${v}`)).join('&');
  const body = d.method === 'GET' ? undefined : bodyText(d.body);
  const headers = { ...d.headers };
  if (body === undefined) delete headers['content-type'];
  return {
    document: op.document,
    operationId: op.operationId,
    mutation,
    method: d.method,
    target: d.query.length ? `${path}?${query}` : path,
    headers,
    body,
    signedBy: d.sign ? op.signedBy : undefined,
    expect: d.expect,
  };
}
