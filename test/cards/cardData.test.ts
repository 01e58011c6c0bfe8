/**
 * Card data protection on its own (src/cards/data.ts, src/cards/keys.ts, src/kernel/secrets/sealing.ts):
 * PANs from the sandbox BIN, Luhn-valid; fingerprints keyed; AES-256-GCM sealing bound
 * to the card and field, with the key version beside each value so that keys rotate.
 */
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import {
  cardKeyring,
  expiryDateFor,
  expiryMonthYear,
  isValidPan,
  newCvv,
  newPan,
  openCardValue,
  panFingerprint,
  sealCardValue,
  SANDBOX_BIN,
} from '../../src/cards/data.js';
import { cardKeys } from '../../src/cards/keys.js';
import { running, testConfig } from '../support/service.js';

const CARD = '7c1e4b2a-9d3f-4e8a-b6c5-1f2e3d4c5b6a';
const ring = (current: number, secrets: Record<number, string>, fingerprint = 'fingerprint-secret') =>
  cardKeyring({ current, secrets: new Map(Object.entries(secrets).map(([v, s]) => [Number(v), Buffer.from(s)])), fingerprintSecret: Buffer.from(fingerprint) });

describe('card data protection', () => {
  it('makes 16-digit, Luhn-valid PANs from the sandbox BIN, spread over the 10⁹ numbers it has', () => {
    // 2,000 draws from 10⁹ repeat one with a chance of 1 in 500: a collision is allowed, a narrow
    // generator is not (cards' unique index on the PAN's fingerprint makes an issued PAN unique).
    const pans = new Set(Array.from({ length: 2000 }, newPan));
    expect(pans.size).to.be.at.least(1998);
    for (const pan of pans) {
      expect(pan).to.match(/^[0-9]{16}$/);
      expect(pan.startsWith(SANDBOX_BIN)).to.equal(true);
      expect(isValidPan(pan), pan).to.equal(true);
    }
    const pan = [...pans][0];
    const broken = pan.slice(0, 15) + String((Number(pan[15]) + 1) % 10);
    expect(isValidPan(broken)).to.equal(false);
    expect(isValidPan('4111111111111111')).to.equal(true); // the well-known test PAN: the check is Luhn's
    expect(newCvv()).to.match(/^[0-9]{3}$/);
  });

  it('fingerprints a PAN with a keyed hash: stable for one key, different under another, never the PAN', () => {
    const pan = newPan();
    const a = ring(1, { 1: 'k' });
    expect(panFingerprint(a, pan)).to.equal(panFingerprint(a, pan)).and.match(/^[0-9a-f]{64}$/).and.not.include(pan);
    expect(panFingerprint(ring(1, { 1: 'k' }, 'another'), pan)).to.not.equal(panFingerprint(a, pan));
    expect(panFingerprint(ring(2, { 2: 'rotated' }), pan), 'rotating the data key keeps fingerprints').to.equal(panFingerprint(a, pan));
  });

  it('seals with AES-256-GCM: random IV, bound to card and field, tamper-evident', () => {
    const keys = ring(1, { 1: 'card-key' });
    const pan = newPan();
    const one = sealCardValue(keys, CARD, 'pan', pan);
    const two = sealCardValue(keys, CARD, 'pan', pan);
    expect(one.keyVersion).to.equal(1);
    expect(one.sealed).to.not.equal(two.sealed).and.not.include(pan);
    expect(openCardValue(keys, CARD, 'pan', one)).to.equal(pan);
    expect(() => openCardValue(keys, CARD, 'cvv', one), 'another field').to.throw();
    expect(() => openCardValue(keys, '00000000-0000-4000-8000-000000000000', 'pan', one), 'another card').to.throw();
    const [family, iv, tag, data] = one.sealed.split('.');
    expect(family, 'the value names its key family').to.equal('card-data');
    const flipped = Buffer.from(data, 'base64url');
    flipped[0] ^= 1;
    expect(() => openCardValue(keys, CARD, 'pan', { ...one, sealed: [family, iv, tag, flipped.toString('base64url')].join('.') }), 'altered').to.throw();
    expect(() => openCardValue(keys, CARD, 'pan', { ...one, sealed: ['webhook-secret', iv, tag, data].join('.') }), 'another family').to.throw(/webhook-secret/);
    expect(openCardValue(keys, CARD, 'pan', { ...one, sealed: [iv, tag, data].join('.') }), 'sealed before families were named').to.equal(pan);
    expect(() => openCardValue(ring(1, { 1: 'other-key' }), CARD, 'pan', one), 'another key').to.throw();
  });

  it('rotates keys: old values open with their version, new ones are sealed under the current version', () => {
    const before = ring(1, { 1: 'first-key' });
    const old = sealCardValue(before, CARD, 'cvv', '123');
    const after = ring(2, { 1: 'first-key', 2: 'second-key' });
    expect(openCardValue(after, CARD, 'cvv', old)).to.equal('123');
    const fresh = sealCardValue(after, CARD, 'cvv', '456');
    expect(fresh.keyVersion).to.equal(2);
    expect(() => openCardValue(before, CARD, 'cvv', fresh)).to.throw(/version 2/);
    expect(() => ring(3, { 1: 'first-key' })).to.throw(/current version 3/);
  });

  it('expires cards on the last day of the month five years on; E6 shows it as MM/YY', () => {
    expect(expiryDateFor(new Date('2026-02-10T12:00:00Z'))).to.equal('2031-02-28');
    expect(expiryDateFor(new Date('2027-02-01T00:00:00Z'))).to.equal('2032-02-29');
    expect(expiryDateFor(new Date('2026-12-31T23:59:59Z'))).to.equal('2031-12-31');
    expect(expiryMonthYear('2031-02-28')).to.equal('02/31');
  });

  it('reads the keys from the environment, generating and keeping them in the sandbox when unset', async () => {
    const config = loadConfig({ CARD_DATA_KEY: 'env-key', CARD_DATA_KEY_VERSION: '3', CARD_DATA_PREVIOUS_KEYS: '1:one,2:two', CARD_FINGERPRINT_KEY: 'fp' });
    expect(config).to.include({ cardDataKey: 'env-key', cardDataKeyVersion: 3, cardFingerprintKey: 'fp' });
    expect(config.cardDataPreviousKeys).to.deep.equal({ 1: 'one', 2: 'two' });
    expect(() => loadConfig({ SANDBOX: 'false' })).to.throw(/CARD_DATA_KEY, CARD_FINGERPRINT_KEY, WEBHOOK_SECRET_KEY, IDEMPOTENCY_REPLAY_KEY, TOTP_SECRET_KEY required when SANDBOX=false/);
    expect(() => loadConfig({ CARD_DATA_PREVIOUS_KEYS: 'nope' })).to.throw(/CARD_DATA_PREVIOUS_KEYS/);

    const kept = { ...testConfig(), cardDataKey: undefined, cardFingerprintKey: undefined, cardDataKeyVersion: 1 };
    const first = await cardKeys(running().db, kept);
    const again = await cardKeys(running().db, kept);
    const sealed = sealCardValue(first, CARD, 'pin', '1234');
    expect(openCardValue(again, CARD, 'pin', sealed)).to.equal('1234');
    expect(panFingerprint(first, '9990010000000001')).to.equal(panFingerprint(again, '9990010000000001'));
    const row = await running().db('settings').where({ key: 'card_data_key_v1' }).first();
    expect(Buffer.from(row.value, 'base64')).to.have.length(32);
  });
});
