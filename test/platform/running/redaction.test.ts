/**
 * The one redaction rule (src/log.ts SENSITIVE), shared by the service's logs and the API
 * request log: every property name of the API documents that looks like it carries a secret,
 * card data, a code or a national id is one the rule redacts, or one this file judges harmless
 * (HARMLESS, each with why). A new such name in a document fails here until it is judged.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { createLogger, isSensitiveName, REDACT_PATHS, REDACTED, redacted, SENSITIVE } from '../../../src/log.js';

/** Names that look sensitive: secrets, passwords, codes, tokens, card data, national ids. */
const LOOKS_SENSITIVE = /secret|password|passcode|otp|^pan$|cvv|^pin$|_pin$|^code$|_codes?$|token|credential|totp|recovery|national_id|expiry|authorization|cookie|^link$|invitation/i;

/** Sensitive-looking names that carry nothing secret, and why. */
const HARMLESS: Readonly<Record<string, string>> = {
  otp_expires_at: 'when a code expires, not the code',
  otp_resend_available_at: 'when a code may be sent again',
  otp_resends_remaining: 'a count',
  otpSentAt: 'a time (provider callback)',
  otpVerifiedAt: 'a time (provider callback)',
  previous_secret_expires_at: 'when a rotated secret stops working, not the secret',
  previous_secret_valid_seconds: 'a duration',
  token_type: 'always "Bearer"',
  problem_code: 'a problem code (UPPER_SNAKE), public',
  failure_code: 'a payout failure code, public',
  event_code: 'an event type, public',
  invitation_expires_at: 'when an invitation lapses, not its token',
};

/** Every property name declared in a schema of openapi/*.yaml. */
function documentPropertyNames(): Set<string> {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const props = (node as { properties?: unknown }).properties;
    if (props && typeof props === 'object' && !Array.isArray(props)) for (const name of Object.keys(props)) names.add(name);
    Object.values(node).forEach(walk);
  };
  for (const file of readdirSync('openapi').filter((f) => f.endsWith('.yaml'))) walk(YAML.parse(readFileSync(`openapi/${file}`, 'utf8')));
  return names;
}

describe('redaction: one rule for the logs and the request log', () => {
  it('every sensitive-looking property name of the documents is redacted, or judged harmless', () => {
    const names = [...documentPropertyNames()];
    expect(names).to.include.members(['pan', 'cvv', 'client_secret', 'otp']); // the walk reaches the schemas
    const unjudged = names.filter((n) => LOOKS_SENSITIVE.test(n) && !isSensitiveName(n) && !Object.hasOwn(HARMLESS, n));
    expect(unjudged, 'add each to SENSITIVE (src/log.ts), or to HARMLESS here with why').to.deep.equal([]);
  });

  it('the pattern catches new names of each kind', () => {
    for (const name of ['webhook_secret', 'new_password', 'sms_otp', 'pan', 'cvv2', 'backup_codes', 'refresh_token', 'pin']) {
      expect(LOOKS_SENSITIVE.test(name), name).to.equal(true);
    }
  });

  it('redacts at any depth, in arrays, whatever the case, and keeps the rest', () => {
    const body = { amount: '10.00', card: { PAN: '9990010123456784', cvv: '123', last_4_digits: '6784' }, items: [{ otp: '482913', id: 'x' }], credentials: { client_id: 'a', client_secret: 'b' }, pin: null };
    expect(redacted(body)).to.deep.equal({
      amount: '10.00',
      card: { PAN: REDACTED, cvv: REDACTED, last_4_digits: '6784' },
      items: [{ otp: REDACTED, id: 'x' }],
      credentials: REDACTED,
      pin: null,
    });
    expect(body.card.PAN).to.equal('9990010123456784'); // a copy: the answer itself is untouched
  });

  it('keeps a code that names a kind (a problem, an event, an errno) and redacts one of digits, in both places', () => {
    const body = { code: '482913', problem: { code: 'VALIDATION_ERROR' }, event: { code: 'topup.complete' }, totp: { code: '12 34 56' }, odd: { code: 'abc-123' } };
    const expected = { code: REDACTED, problem: { code: 'VALIDATION_ERROR' }, event: { code: 'topup.complete' }, totp: { code: REDACTED }, odd: { code: REDACTED } };
    expect(redacted(body)).to.deep.equal(expected);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'redaction-')), 'log');
    createLogger({ file }).warn({ body }, 'probe');
    expect(JSON.parse(readFileSync(file, 'utf8')).body).to.deep.equal(expected);
  });

  it("the service's log redacts the same names, and keeps an error's code readable as error_code", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'redaction-')), 'log');
    createLogger({ file }).warn({ err: Object.assign(new Error('deadlock'), { code: '40P01' }), body: { otp: '482913', amount: '1.00' } }, 'probe');
    const line = JSON.parse(readFileSync(file, 'utf8'));
    expect(line.body).to.deep.equal({ otp: REDACTED, amount: '1.00' });
    expect(line.err).to.include({ message: 'deadlock', error_code: '40P01' });
  });

  it("pino's paths are derived from the same names", () => {
    for (const name of SENSITIVE) expect(REDACT_PATHS).to.include.members([name, `*.${name}`, `*.*.${name}`]);
  });
});
