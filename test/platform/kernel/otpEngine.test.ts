/**
 * The OTP engine on its own, against the real database: the flows' tests cover
 * it through the API; these pin the engine's guarantees for every caller (the
 * card flows next), whatever locks a caller takes.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { assertOtpFormat, issueOtp, otpFailure, resendOtp, verifyOtp, type OtpPolicy } from '../../../src/kernel/otp/otp.js';
import { AppError } from '../../../src/kernel/errors.js';
import { newBusiness } from '../../support/fixtures.js';
import { running } from '../../support/service.js';

const KEY = Buffer.from('engine-test-key');
const CARD_POLICY: OtpPolicy = { digits: 4, ttlSeconds: 300, maxAttempts: 3, resendCooldownSeconds: 30, maxResends: 1 };

async function issue(policy: OtpPolicy, now = new Date()): Promise<{ id: string; code: string; businessId: string }> {
  const businessId = (await newBusiness()).id;
  let code = '';
  const id = await issueOtp(running().db, KEY, {
    businessId,
    purpose: 'TEST',
    mobileNumber: '966511111111',
    policy,
    now,
    deliver: async (c) => {
      code = c;
    },
  });
  return { id, code, businessId };
}

describe('OTP engine', () => {
  it('issues codes of the policy\'s length from the whole range, stored only as a keyed hash', async () => {
    const { id, code } = await issue(CARD_POLICY);
    expect(code).to.match(/^[0-9]{4}$/);
    const row = await running().db('otp_operations').where({ id }).first();
    expect(row).to.include({ digits: 4, status: 'PENDING', attempts: 0, max_attempts: 3 });
    expect(row.code_hash).to.match(/^[0-9a-f]{64}$/).and.not.include(code);
    expect(() => assertOtpFormat('12345', 4)).to.throw(AppError, /4 digits/);
    expect(() => assertOtpFormat('12345', 4, 8)).not.to.throw();
    expect(() => assertOtpFormat('123456789', 4, 8)).to.throw(AppError, /4 to 8 digits/);
  });

  it('counts parallel wrong guesses with one atomic update: never past the cap, even without any other lock', async () => {
    const { id, code, businessId } = await issue({ ...CARD_POLICY, maxAttempts: 5 });
    const wrong = code === '0000' ? '0001' : '0000';
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => verifyOtp(running().db, KEY, { operationId: id, businessId, code: wrong, now: new Date() })),
    );
    expect(outcomes.filter((o) => o.result === 'INCORRECT')).to.have.length(4);
    expect(outcomes.filter((o) => o.result === 'MAX_ATTEMPTS_REACHED')).to.have.length(1);
    expect(outcomes.filter((o) => o.result === 'WRONG_STATUS')).to.have.length(15);
    expect((await running().db('otp_operations').where({ id }).first()).attempts).to.equal(5);
    // The operation failed: any later verification is the seed's 412, the right code included.
    expect(await verifyOtp(running().db, KEY, { operationId: id, businessId, code, now: new Date() })).to.deep.equal({ result: 'WRONG_STATUS', status: 'FAILED' });
  });

  it('reports VERIFIED once, then WRONG_STATUS (412); EXPIRED past the expiry; NOT_FOUND for another business', async () => {
    const { id, code, businessId } = await issue(CARD_POLICY);
    const later = new Date(Date.now() + 301_000);
    const fresh = await issue(CARD_POLICY);
    expect(await verifyOtp(running().db, KEY, { operationId: fresh.id, businessId: fresh.businessId, code: fresh.code, now: later })).to.deep.equal({ result: 'EXPIRED' });
    expect(await verifyOtp(running().db, KEY, { operationId: id, businessId: randomUUID(), code, now: new Date() })).to.deep.equal({ result: 'NOT_FOUND' });
    expect(await verifyOtp(running().db, KEY, { operationId: id, businessId, code, now: new Date() })).to.deep.equal({ result: 'VERIFIED' });
    const again = await verifyOtp(running().db, KEY, { operationId: id, businessId, code, now: new Date() });
    expect(again).to.deep.equal({ result: 'WRONG_STATUS', status: 'VERIFIED' });
    expect(otpFailure(again as never).status).to.equal(412);
    expect(otpFailure({ result: 'NOT_FOUND' }).code).to.equal('OTP_OPERATION_NOT_FOUND');
  });

  it('resends after the cool-down only, up to the cap; the replaced operation FAILS', async () => {
    const now = new Date();
    const { id, businessId } = await issue(CARD_POLICY, now);
    const req = { businessId, purpose: 'TEST', mobileNumber: '966511111111', policy: CARD_POLICY, deliver: async () => undefined };
    const soon = await resendOtp(running().db, KEY, id, { ...req, now: new Date(now.getTime() + 10_000) }).catch((e) => e);
    expect(soon).to.be.instanceOf(AppError).and.include({ code: 'OTP_RESEND_TOO_SOON' });
    expect(soon.headers['Retry-After']).to.equal('20');
    const next = await resendOtp(running().db, KEY, id, { ...req, now: new Date(now.getTime() + 30_000) });
    expect((await running().db('otp_operations').where({ id }).first()).status).to.equal('FAILED');
    const capped = await resendOtp(running().db, KEY, next, { ...req, now: new Date(now.getTime() + 61_000) }).catch((e) => e);
    expect(capped).to.be.instanceOf(AppError).and.include({ code: 'OTP_RESEND_LIMIT_REACHED' });
  });
});
