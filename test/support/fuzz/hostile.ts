/**
 * Hostile values for the contract fuzz, as fast-check arbitraries: long strings (past
 * every documented length: 1,001 and 2,049 are one past `detail` and `instance`),
 * Unicode edge cases, values of the wrong JSON type, malformed JSON texts, header
 * values, forged or broken bearer tokens. Lengths stay within Node's 16 KiB limit on a
 * request head, which Node itself enforces (431) before the service sees the request.
 */
import fc from 'fast-check';
import { SignJWT } from 'jose';

/** Lengths one past the documents' limits that echo input (200, 255, 1000, 2048) and beyond. */
export const LONG_LENGTHS = [201, 256, 1_001, 2_049, 5_000] as const;

/** Printable ASCII (what any header, query or path may carry). */
const printable = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));

/** A long printable ASCII string of one of LONG_LENGTHS (the run of one character, or a mix). */
export const longAscii: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...LONG_LENGTHS), fc.boolean(), printable)
  .chain(([length, repeated, char]) => (repeated ? fc.constant(char.repeat(length)) : fc.string({ unit: printable, minLength: length, maxLength: length })));

/** Unicode edge cases as JavaScript strings (JSON.stringify escapes what JSON needs). */
export const UNICODE_EDGES = [
  '\u0000',
  'a\u0000b',
  '\u202Eevil\u202C', // right-to-left override
  '\uFEFFbom',
  '\u200B\u200C\u200D', // zero-width characters
  '\u2028\u2029', // line and paragraph separators
  'e\u0301\u0301\u0301', // combining marks
  '\u{1F469}\u200D\u{1F4BB}', // an emoji ZWJ sequence
  '\uFFFF\uFFFE',
  '\u00A0\u3000',
  'ﷺ',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '\u0007\u001B[31m', // bell, terminal escape
  "'; DROP TABLE wallets; --",
  '../../etc/passwd',
  '%00%ff',
  '${7*7}{{7*7}}',
] as const;

/** A Unicode edge case, alone or inside ordinary text. */
export const unicodeEdge: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...UNICODE_EDGES), fc.string({ maxLength: 8 }))
  .map(([edge, text]) => `${text}${edge}${text}`);

/** Raw JSON text of a string with a lone UTF-16 surrogate (which JSON.stringify never writes). */
export const loneSurrogateJson = fc.constantFrom('"\\ud800"', '"a\\udfffb"', '"\\udc00\\ud800"');

/** Percent-encoded text that is not UTF-8, or not an escape at all, for paths and queries. */
export const badPercent = fc.constantFrom('%FF', '%C0%AF', '%E0%80', '%', '%zz', '%00', '%2F..%2F', '%EF%BF%BF', '%ED%A0%80');

/** A value of a JSON type chosen at random (the mutation replaces a field's value with it). */
export const anyJsonType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e308, -0, 2 ** 53 + 1, -(2 ** 63)),
  fc.string({ maxLength: 10 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
);

/** JSON texts that are not valid JSON, or valid JSON of a shape no operation takes. */
export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":}',
    '{"a":1,}',
    "{'a':1}",
    '{"a":NaN}',
    '{"a":01}',
    '{"a":"\\u12"}',
    '{"a":"\\x41"}',
    '\uFEFF{}',
    '{}garbage',
    '{"a":1}{"b":2}',
    '[',
    '"',
    'nul',
    '',
    ' ',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
  ),
  fc.integer({ min: 500, max: 5_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 500, max: 5_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  loneSurrogateJson.map((s) => `{"name":${s}}`),
);

/** Values for the X-API-Version header that no version is: empty, blank, near misses, lists, long. */
export const badApiVersion: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'V1', 'v1 ', ' v1', 'v1,v2', 'v1, v1', 'v0', 'v4', 'v10', '1', 'latest', '*', 'v1\t', '\u00e9'),
  fc.string({ unit: printable, minLength: 1, maxLength: 20 }).filter((v) => !['v1', 'v2', 'v3'].includes(v)),
  longAscii,
);

/** Latin-1 header values beyond ASCII (what a header may carry as obs-text). */
export const latin1Header: fc.Arbitrary<string> = fc.string({
  unit: fc.integer({ min: 0xa0, max: 0xff }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 30,
});

/** Claims of a token the service would issue. */
export interface TokenClaims {
  sub: string;
  kind: string;
  bid: string | null;
}

/**
 * Bearer tokens that must be refused (401), made with `secret` (the service's own key,
 * so that only the one wrong thing makes them invalid): expired, wrong issuer, wrong
 * algorithm, `alg: none`, another key, claims of an unknown kind, garbage.
 */
export async function forgedTokens(secret: string, claims: TokenClaims): Promise<string[]> {
  const key = new TextEncoder().encode(secret);
  const now = Math.floor(Date.now() / 1000);
  const sign = (c: Record<string, unknown>, opts: { alg?: string; iss?: string; exp?: number; key?: Uint8Array } = {}) =>
    new SignJWT(c)
      .setProtectedHeader({ alg: opts.alg ?? 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuer(opts.iss ?? 'wallet-service')
      .setIssuedAt(now - 60)
      .setExpirationTime(opts.exp ?? now + 600)
      .sign(opts.key ?? key);
  const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: claims.sub, kind: claims.kind, bid: claims.bid, iss: 'wallet-service', exp: now + 600 })}.`;
  return [
    await sign({ kind: claims.kind, bid: claims.bid }, { exp: now - 10 }),
    await sign({ kind: claims.kind, bid: claims.bid }, { iss: 'someone-else' }),
    await sign({ kind: claims.kind, bid: claims.bid }, { alg: 'HS512' }),
    await sign({ kind: claims.kind, bid: claims.bid }, { key: new TextEncoder().encode('another-secret-another-secret-another') }),
    await sign({ kind: 'ADMIN', bid: claims.bid }),
    await sign({ kind: 'BUSINESS', bid: null }),
    unsigned,
    'not-a-jwt',
    'a.b.c',
  ];
}

/** Authorization header values that carry no usable bearer token. */
export const brokenAuthorization = (tokens: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...tokens).map((t) => `Bearer ${t}`),
    fc.constantFrom('', 'Bearer', 'Bearer ', 'bearer', 'Basic dXNlcjpwYXNz', 'Token abc', 'Bearer a b'),
    longAscii.map((t) => `Bearer ${t}`),
    latin1Header.map((t) => `Bearer ${t}`),
  );
