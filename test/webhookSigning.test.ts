/**
 * The delivery JWT (src/webhooks/signing.ts `hs256Jwt`): made with node:crypto's HMAC, it
 * is byte for byte the token `jose` signs for the same claims and key, `jose` verifies
 * it, and a token with a changed claim or made with another key does not verify.
 */
import { expect } from 'chai';
import { SignJWT, jwtVerify } from 'jose';
import { hs256Jwt, signerFor, signingKey } from '../src/webhooks/signing.js';

describe('delivery JWT signing', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const claims = { body_sha256: 'q1MKE-RZFJgrefm34_uDJe0Ywp4UZqOP6n9xuaTyEJA', iss: 'wallet-service', sub: 'a-business', aud: 'https://example.com/hooks', jti: 'an-event', iat: 1_700_000_000, exp: 1_700_000_300 };

  it('is the token jose signs for the same claims and key, and jose verifies it', async () => {
    const token = hs256Jwt(claims, signerFor(secret).jwtKey);
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
    const token = hs256Jwt(claims, signerFor(secret).jwtKey);
    const at = { algorithms: ['HS256'], currentDate: new Date((claims.iat + 1) * 1000) };
    const [header, , signature] = token.split('.');
    const changed = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'another' })).toString('base64url')}.${signature}`;
    const refusal = (t: string, key: Uint8Array) => jwtVerify(t, key, at).then(() => 'verified', (e: Error) => e.message);
    expect(await refusal(token, signingKey(secret))).to.equal('verified');
    expect(await refusal(changed, signingKey(secret))).to.equal('signature verification failed');
    expect(await refusal(token, signingKey(`whsec_${Buffer.alloc(32, 8).toString('base64')}`))).to.equal('signature verification failed');
  });
});
