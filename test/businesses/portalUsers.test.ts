import { expect } from 'chai';
import { get, post, request } from '../support/client.js';
import { expectProblem } from '../support/assertions.js';
import { newBusiness, newWallet, uniq, type TestBusiness } from '../support/fixtures.js';
import { codeAt, enrolledUser, floodFrom, invitationToken, PASSWORD, postFrom, session, signIn, withSession, type PortalUser } from '../support/portalUsers.js';
import { running, startExtraService } from '../support/service.js';
import type { RunningService } from '../../src/server.js';

/** A problem without what differs per request, to compare two answers. */
const sameness = (body: any) => ({ ...body, request_id: undefined, instance: undefined });

describe('portal users', function () {
  this.timeout(60_000);
  let business: TestBusiness;
  let owner: PortalUser;
  const as = () => ({ token: business.token });
  before(async () => {
    business = await newBusiness();
    owner = await enrolledUser(as(), 'owner', business.token);
  });

  it('invites, accepts with a password and a TOTP code, and signs in to a session that works as an API credential', async () => {
    const s = await session(owner);
    expect(s.body.user).to.include({ id: owner.id, role: 'owner', status: 'ACTIVE' });
    expect(s.body).to.include({ business_id: business.id, idle_timeout_seconds: 1800 });
    // A read needs no CSRF token; a change needs it (403 without it), then works.
    expect((await withSession(s, 'GET', '/cl/v1/wallets', { csrf: false })).status).to.equal(200);
    expect((await withSession(s, 'GET', '/portal-sessions/current', { csrf: false })).body.csrf_token).to.equal(s.csrf);
    const refused = await withSession(s, 'POST', '/cl/v1/wallets', { body: { name: 'No CSRF' }, csrf: false });
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(refused.body.detail).to.include('X-CSRF-Token');
    expectProblem(await withSession(s, 'POST', '/cl/v1/wallets', { body: { name: 'Wrong CSRF' }, headers: { 'x-csrf-token': 'x'.repeat(43) }, csrf: false }), 403, 'FORBIDDEN');
    const created = await withSession(s, 'POST', '/cl/v1/wallets', { body: { name: 'With CSRF' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    // The invitation is used: it neither accepts nor confirms again.
    const token = await invitationToken(business.token, owner.email);
    expectProblem(await post('/portal-user-invitations/accept', { token, password: PASSWORD }), 404, 'INVITATION_NOT_FOUND');
  });

  it('keeps the TOTP secret sealed and the password, codes and session ids hashed at rest', async () => {
    const row = await running().db('portal_users').where({ business_id: business.id, id: owner.id }).first();
    expect(row.password_hash).to.match(/^\$argon2id\$/);
    expect(row.totp_secret_sealed).to.match(/^totp-secret\./);
    expect(row.totp_secret_sealed).not.to.include(owner.totp.secret.base32);
    expect(row.recovery_code_hashes).to.have.length(10);
    expect(row.recovery_code_hashes).not.to.include(owner.recoveryCodes[0]);
  });

  it('refuses a wrong TOTP code at enrolment and an invitation token that is not one', async () => {
    const email = `late-${uniq()}@example.com`;
    expect((await post('/portal-users', { email, name: 'Late', role: 'viewer' }, as())).status).to.equal(201);
    const token = await invitationToken(business.token, email);
    expectProblem(await post('/portal-user-invitations/confirm-totp', { token, code: '000000' }), 409, 'INVITATION_NOT_ACCEPTED');
    const accepted = await post('/portal-user-invitations/accept', { token, password: PASSWORD });
    expect(accepted.status).to.equal(200);
    const wrong = accepted.body.totp_secret === 'A' ? '111111' : '000000';
    expectProblem(await post('/portal-user-invitations/confirm-totp', { token, code: wrong }), 400, 'TOTP_INCORRECT');
    expectProblem(await post('/portal-user-invitations/accept', { token: `${business.id}.${'A'.repeat(43)}`, password: PASSWORD }), 404, 'INVITATION_NOT_FOUND');
    expectProblem(await post('/portal-user-invitations/accept', { token, password: 'short' }), 400, 'VALIDATION_ERROR');
    expectProblem(await post('/portal-users', { email: email.toUpperCase(), name: 'Again', role: 'viewer' }, as()), 409, 'PORTAL_USER_EMAIL_TAKEN');
    expectProblem(await post('/portal-user-invitations/confirm-totp', { token: `${business.id}.${'B'.repeat(43)}`, code: '123456' }), 404, 'INVITATION_NOT_FOUND');
  });

  it('answers a retried invitation with the same user, and another body under its key 422', async () => {
    const idempotencyKey = uniq();
    const body = { email: `retried-${uniq()}@example.com`, name: 'Retried', role: 'viewer' };
    const first = await post('/portal-users', body, { ...as(), idempotencyKey });
    const again = await post('/portal-users', body, { ...as(), idempotencyKey });
    expect(first.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(first.headers.get('location')).to.equal(`/portal-users/${first.body.id}`);
    expectProblem(await post('/portal-users', { ...body, name: 'Other' }, { ...as(), idempotencyKey }), 422, 'IDEMPOTENCY_KEY_REUSED');
    // A removed user can be neither changed nor found under another business's key.
    expect((await request('DELETE', `/portal-users/${first.body.id}`, as())).body).to.include({ status: 'REMOVED' });
    expectProblem(await request('PATCH', `/portal-users/${first.body.id}`, { ...as(), body: { name: 'Changed' } }), 404, 'PORTAL_USER_NOT_FOUND');
  });

  it('gives a viewer its role: it reads, and a money move is 403 naming money:move', async () => {
    const viewer = await enrolledUser(as(), 'viewer', business.token);
    const s = await session(viewer);
    expect((await withSession(s, 'GET', '/cl/v1/wallets')).status).to.equal(200);
    const move = await withSession(s, 'POST', '/cl/v1/transfers', { body: { source_wallet_id: owner.id, destination_wallet_id: viewer.id, amount: '1.00' } });
    expectProblem(move, 403, 'FORBIDDEN');
    expect(move.body.detail).to.include('money:move');
    expectProblem(await withSession(s, 'GET', '/portal-users'), 403, 'FORBIDDEN');
  });

  it('lets a user with keys:manage invite only roles it holds, change roles at once, and keeps the last owner', async () => {
    const admin = await enrolledUser(as(), 'admin', business.token);
    const read = await get(`/portal-users/${admin.id}`, as());
    expect(read.status).to.equal(200);
    expect(read.body).to.include({ id: admin.id, email: admin.email, role: 'admin', status: 'ACTIVE' });
    const s = await session(admin);
    const developer = await enrolledUser({ headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } }, 'developer', business.token);
    const devSession = await session(developer);
    expect((await withSession(devSession, 'GET', '/portal-users')).status).to.equal(200);
    const escalation = await withSession(devSession, 'POST', '/portal-users', { body: { email: `admin-${uniq()}@example.com`, name: 'Escalation', role: 'admin' } });
    expectProblem(escalation, 403, 'FORBIDDEN');
    expect(escalation.body.detail).to.include('the caller lacks wallets:write');
    expectProblem(await withSession(devSession, 'DELETE', `/portal-users/${admin.id}`), 403, 'FORBIDDEN');
    // A role change reaches the user's session on its next request.
    const demoted = await withSession(s, 'PATCH', `/portal-users/${developer.id}`, { body: { role: 'viewer' } });
    expect(demoted.body).to.include({ role: 'viewer' });
    expectProblem(await withSession(devSession, 'GET', '/portal-users'), 403, 'FORBIDDEN');
    // The only active owner can be neither demoted nor removed.
    const owners = (await get('/portal-users?limit=100', as())).body.data.filter((u: any) => u.role === 'owner' && u.status === 'ACTIVE');
    expect(owners).to.have.length(1);
    expectProblem(await withSession(s, 'PATCH', `/portal-users/${owner.id}`, { body: { role: 'viewer' } }), 409, 'LAST_OWNER');
    expectProblem(await request('DELETE', `/portal-users/${owner.id}`, as()), 409, 'LAST_OWNER');
    // Removing a user ends its sessions at once.
    const removed = await withSession(s, 'DELETE', `/portal-users/${developer.id}`);
    expect(removed.body).to.include({ status: 'REMOVED' });
    expectProblem(await withSession(devSession, 'GET', '/cl/v1/wallets'), 401, 'UNAUTHORIZED');
    expectProblem(await signIn(developer, { code: codeAt(developer.totp, -1) }), 401, 'SIGN_IN_FAILED');
  });

  it('answers a wrong password, a wrong code and an unknown email with one identical 401', async () => {
    const user = await enrolledUser(as(), 'support', business.token);
    const wrongPassword = await signIn(user, { password: 'not the password at all', code: codeAt(user.totp) });
    const wrongCode = await signIn(user, { code: '000000' === codeAt(user.totp) ? '111111' : '000000' });
    const unknown = await signIn({ email: `nobody-${uniq()}@example.com` }, { code: codeAt(user.totp) });
    for (const res of [wrongPassword, wrongCode, unknown]) expectProblem(res, 401, 'SIGN_IN_FAILED');
    expect(sameness(wrongCode.body)).to.deep.equal(sameness(wrongPassword.body));
    expect(sameness(unknown.body)).to.deep.equal(sameness(wrongPassword.body));
    // A recovery code signs in once.
    const first = await signIn(user, { recovery_code: user.recoveryCodes[0] });
    expect(first.status).to.equal(201);
    expectProblem(await signIn(user, { recovery_code: user.recoveryCodes[0] }), 401, 'SIGN_IN_FAILED');
  });

  it('locks an account after 10 failures in a row, even to the right credentials, answered alike', async () => {
    const user = await enrolledUser(as(), 'viewer', business.token);
    for (let i = 0; i < 10; i++) expectProblem(await signIn(user, { password: 'wrong password!', code: codeAt(user.totp) }), 401, 'SIGN_IN_FAILED');
    expectProblem(await signIn(user, { code: codeAt(user.totp) }), 401, 'SIGN_IN_FAILED');
    expectProblem(await signIn(user, { recovery_code: user.recoveryCodes[1] }), 401, 'SIGN_IN_FAILED');
  });

  it('signs out here, and everywhere: every session of the user ends', async () => {
    const user = await enrolledUser(as(), 'finance', business.token);
    const one = await session(user);
    const two = await session(user, { recovery_code: user.recoveryCodes[0] });
    const three = await session(user, { recovery_code: user.recoveryCodes[1] });
    const out = await withSession(one, 'DELETE', '/portal-sessions/current');
    expect(out.body).to.deep.equal({ ended_sessions: 1 });
    expect(out.headers.get('set-cookie')).to.match(/^session=; Path=\/; Max-Age=0;/);
    expectProblem(await withSession(one, 'GET', '/cl/v1/wallets'), 401, 'UNAUTHORIZED');
    expect((await withSession(two, 'GET', '/cl/v1/wallets')).status).to.equal(200);
    expectProblem(await withSession(two, 'DELETE', '/portal-sessions', { csrf: false }), 403, 'FORBIDDEN');
    expect((await withSession(two, 'DELETE', '/portal-sessions')).body).to.deep.equal({ ended_sessions: 2 });
    for (const s of [two, three]) expectProblem(await withSession(s, 'GET', '/cl/v1/wallets'), 401, 'UNAUTHORIZED');
    // A bearer token has no session to end.
    expectProblem(await request('DELETE', '/portal-sessions/current', as()), 401, 'UNAUTHORIZED');
  });

  it('asks a session for a recent code before managing people, keys or the API version; a re-authentication opens them again', async () => {
    const admin = await enrolledUser(as(), 'admin', business.token);
    const s = await session(admin);
    const invite = () => withSession(s, 'POST', '/portal-users', { body: { email: `later-${uniq()}@example.com`, name: 'Later', role: 'viewer' } });
    // The sign-in's own code is recent.
    expect((await invite()).status).to.equal(201);
    // Eleven minutes later (the default window is ten): the step is refused, nothing is made;
    // reads, steps not marked, and the business's bearer token are not affected.
    await running().db('portal_sessions').where({ business_id: business.id, user_id: admin.id }).update({ authenticated_at: running().db.raw("CURRENT_TIMESTAMP(3) - interval '11 minutes'") });
    const before = (await get('/portal-users?limit=100', as())).body.data.length;
    const refused = await invite();
    expectProblem(refused, 403, 'FORBIDDEN');
    expect(refused.body.detail).to.include('/portal-sessions/current/reauthentication');
    expectProblem(await withSession(s, 'POST', '/api-keys', { body: { name: 'Later', role: 'viewer' } }), 403, 'FORBIDDEN');
    expectProblem(await withSession(s, 'PATCH', `/cl/v1/businesses/${business.id}`, { body: { api_version: 'v2' } }), 403, 'FORBIDDEN');
    expect((await get('/portal-users?limit=100', as())).body.data).to.have.length(before);
    expect((await withSession(s, 'GET', '/portal-users?limit=100')).status).to.equal(200);
    expect((await withSession(s, 'POST', '/cl/v1/wallets', { body: { name: 'Not sensitive' } })).status).to.equal(201);
    expect((await post('/portal-users', { email: `key-${uniq()}@example.com`, name: 'By key', role: 'viewer' }, as())).status).to.equal(201);
    // A wrong code changes nothing; a recovery code (used up) re-authenticates.
    const reauthenticate = (body: object, csrf = true) => withSession(s, 'POST', '/portal-sessions/current/reauthentication', { body, csrf });
    expectProblem(await reauthenticate({ code: '000000' }), 400, 'TOTP_INCORRECT');
    expectProblem(await reauthenticate({ recovery_code: admin.recoveryCodes[0] }, false), 403, 'FORBIDDEN');
    expectProblem(await invite(), 403, 'FORBIDDEN');
    const again = await reauthenticate({ recovery_code: admin.recoveryCodes[0] });
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body).to.include({ csrf_token: s.csrf });
    expect((await invite()).status).to.equal(201);
    expectProblem(await reauthenticate({ recovery_code: admin.recoveryCodes[0] }), 400, 'TOTP_INCORRECT');
    // A bearer token has no session to re-authenticate.
    expectProblem(await post('/portal-sessions/current/reauthentication', { code: '000000' }, as()), 401, 'UNAUTHORIZED');
  });

  it('ends a session idle past its timeout', async () => {
    const user = await enrolledUser(as(), 'viewer', business.token);
    const s = await session(user);
    expect((await withSession(s, 'GET', '/cl/v1/wallets')).status).to.equal(200);
    // The session's last request, 31 minutes ago (the default idle timeout is 30).
    await running().db('portal_sessions').where({ business_id: business.id, user_id: user.id }).update({ last_used_at: running().db.raw("CURRENT_TIMESTAMP(3) - interval '31 minutes'") });
    expectProblem(await withSession(s, 'GET', '/cl/v1/wallets'), 401, 'UNAUTHORIZED');
  });

  it("keeps a business's users and sessions from another business", async () => {
    const other = await newBusiness();
    const stranger = await enrolledUser({ token: other.token }, 'owner', other.token);
    const s = await session(stranger);
    const list = await withSession(s, 'GET', '/portal-users?limit=100');
    expect(list.body.data.map((u: { id: string }) => u.id)).to.deep.equal([stranger.id]);
    expectProblem(await withSession(s, 'GET', `/portal-users/${owner.id}`), 404, 'PORTAL_USER_NOT_FOUND');
    expectProblem(await withSession(s, 'DELETE', `/portal-users/${owner.id}`), 404, 'PORTAL_USER_NOT_FOUND');
    expectProblem(await get(`/portal-users/${stranger.id}`, as()), 404, 'PORTAL_USER_NOT_FOUND');
    const wallet = await newWallet(business.token);
    expectProblem(await withSession(s, 'GET', `/cl/v1/wallets/${wallet.id}`), 404, 'WALLET_NOT_FOUND');
  });

  describe('sign-ins limited per address', () => {
    let limited: RunningService;
    before(async () => {
      limited = await startExtraService({ signInRateLimitPerAddressPerMinute: 20 });
    });
    after(async () => {
      await limited?.close();
    });

    it('refuses a flood from one address before hashing: a good sign-in from another stays under 1 s, the target is locked', async function () {
      this.timeout(120_000);
      // A time bound on a machine that other suites may be loading: a fresh flood (victim, user, address) per try.
      this.retries(2);
      const victim = await enrolledUser(as(), 'viewer', business.token);
      const user = await enrolledUser(as(), 'viewer', business.token);
      const flooder = `127.0.0.${10 + Math.floor(Math.random() * 200)}`;
      const guess = { email: victim.email, password: 'guessing the password', code: '123456' };
      // A thousand guesses, 50 at a time, from one address (a process of its own, as an attacker's would be).
      const flood = floodFrom(flooder, '/portal-sessions', guess, 1000, 50, limited.url);
      await flood.refused;
      const started = performance.now();
      const good = await postFrom('127.0.0.2', '/portal-sessions', { email: user.email, password: PASSWORD, code: codeAt(user.totp) }, limited.url);
      const ms = performance.now() - started;
      const statuses = await flood.done;
      expect(good).to.equal(201);
      // 1 s on one PostgreSQL; the Citus suite's cluster (three PostgreSQL on the same cores) is given 2 s.
      const bound = process.env.CITUS_SUITE ? 2000 : 1000;
      expect(ms, `a good sign-in took ${Math.round(ms)} ms during the flood`).to.be.below(bound);
      expect(statuses).to.have.length(1000);
      expect(statuses.filter((s) => s === 429).length).to.be.at.least(970);
      expect(statuses.filter((s) => s !== 429).every((s) => s === 401)).to.equal(true);
      // The guesses that were checked locked the target: its own credentials are refused alike.
      expectProblem(await signIn(victim, { code: codeAt(victim.totp) }), 401, 'SIGN_IN_FAILED');
    });
  });
});
