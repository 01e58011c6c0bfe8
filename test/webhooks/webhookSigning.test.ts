/**
 * A delivery's signatures (src/webhooks/signing.ts), both made with node:crypto's HMAC.
 * The Standard Webhooks signature (`webhookSignature`) is byte for byte the one the npm
 * package `standardwebhooks` signs for the same message, timestamp, body and secret, and
 * it verifies the headers of a delivery; a changed body or another secret does not
 * verify. The delivery JWT (`hs256Jwt`) is byte for byte the token `jose` signs for the
 * same claims and key, `jose` verifies it, and a token with a changed claim or made with
 * another key does not verify.
 */
import { expect } from 'chai';
import { SignJWT, jwtVerify } from 'jose';
import { Webhook } from 'standardwebhooks';
import { deliveryHeaders, envelopeBody, hs256Jwt, signerFor, signingKey, webhookSignature } from '../../src/webhooks/signing.js';

describe('delivery Standard Webhooks signature', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const message = {
    eventId: 'a1b2c3d4-0000-4000-8000-000000000001',
    code: 'payout.completed',
    createdAt: new Date('2026-11-25T10:00:00.123Z'),
    endpointId: 'a1b2c3d4-0000-4000-8000-000000000002',
    businessId: 'a1b2c3d4-0000-4000-8000-000000000003',
    url: 'https://example.com/hooks',
    data: { payout_id: 'p-1', amount: '12.34', note: 'naïve – ✓' },
  };

  it('is the signature standardwebhooks signs, and standardwebhooks verifies the delivery', () => {
    const body = envelopeBody(message);
    const now = new Date();
    const timestamp = Math.floor(now.getTime() / 1000);
    expect(webhookSignature(message.eventId, timestamp, body, signerFor(secret).key)).to.equal(new Webhook(secret).sign(message.eventId, now, body));
    const headers = deliveryHeaders(message, body, signerFor(secret), now);
    expect(new Webhook(secret).verify(body, headers)).to.deep.equal(JSON.parse(body));
  });

  it('does not verify with a changed body or another secret', () => {
    const body = envelopeBody(message);
    const headers = deliveryHeaders(message, body, signerFor(secret), new Date());
    const refusal = (b: string, s: string) => {
      try {
        new Webhook(s).verify(b, headers);
        return 'verified';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(refusal(body, secret)).to.equal('verified');
    expect(refusal(body.replace('12.34', '99.34'), secret)).to.equal('No matching signature found');
    expect(refusal(body, `whsec_${Buffer.alloc(32, 8).toString('base64')}`)).to.equal('No matching signature found');
  });

  it('refuses a secret that holds no key', () => {
    expect(() => signerFor('whsec_')).to.throw(Error, 'a webhook secret must hold a key');
  });
});

describe('delivery JWT signing', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const claims = { body_sha256: 'q1MKE-RZFJgrefm34_uDJe0Ywp4UZqOP6n9xuaTyEJA', iss: 'wallet-service', sub: 'a-business', aud: 'https://example.com/hooks', jti: 'an-event', iat: 1_700_000_000, exp: 1_700_000_300 };

  it('is the token jose signs for the same claims and key, and jose verifies it', async () => {
    const token = hs256Jwt(claims, signerFor(secret).key);
    const key = signingKey(secret);
    const byJose = await new SignJWT({ body_sha256: claims.body_sha256 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(claims.iss)
      .setSubject(claims.sub)
      .setAudience(claims.aud)
      .setJti(claims.jti)
      .setIssuedAt(claims.iat)
      .setExpirationTime(claims.exp)
      .sign(key);
    expect(token).to.equal(byJose);
    const { payload, protectedHeader } = await jwtVerify(token, key, { algorithms: ['HS256'], currentDate: new Date((claims.iat + 1) * 1000) });
    expect(payload).to.deep.equal(claims);
    expect(protectedHeader).to.deep.equal({ alg: 'HS256', typ: 'JWT' });
  });

  it('does not verify with a changed claim or another key', async () => {
    const token = hs256Jwt(claims, signerFor(secret).key);
    const at = { algorithms: ['HS256'], currentDate: new Date((claims.iat + 1) * 1000) };
    const [header, , signature] = token.split('.');
    const changed = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'another' })).toString('base64url')}.${signature}`;
    const refusal = (t: string, key: Uint8Array) => jwtVerify(t, key, at).then(() => 'verified', (e: Error) => e.message);
    expect(await refusal(token, signingKey(secret))).to.equal('verified');
    expect(await refusal(changed, signingKey(secret))).to.equal('signature verification failed');
    expect(await refusal(token, signingKey(`whsec_${Buffer.alloc(32, 8).toString('base64')}`))).to.equal('signature verification failed');
  });
});
