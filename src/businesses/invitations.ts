/**
 * A portal user's invitation, from its token to an active account (./users.ts has the user
 * itself): accepting sets the password (argon2id) and draws a TOTP secret (RFC 6238, sealed
 * in the TOTP_SECRET key family), confirming a first code activates the user and answers its
 * recovery codes, once. In the sandbox, the messages that would be e-mailed are kept for a
 * test helper, and the demo business gets an owner with documented credentials.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import argon2 from 'argon2';
import type { Knex } from 'knex';
import { Secret } from 'otpauth';
import type { components } from '../../generated/types/core.js';
import { AppError } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';
import { sealValue, type SealingKeys } from '../kernel/secrets/sealing.js';
import { ARGON2_OPTIONS, RECOVERY_CODES, sealContext, tokenBusiness, tokenHash, totpOf, totpStep, toUserView, type PortalUserRow } from './users.js';

type Schemas = components['schemas'];

/**
 * The invited user whose pending invitation `token` is, locked for the change; throws 404
 * INVITATION_NOT_FOUND for a malformed, unknown, used or expired token. `found` learns the
 * account as soon as it is known (the audit's subject).
 */
async function invitedUser(trx: Knex, token: string, found: (subject: { businessId: string; userId: string }) => void, forUpdate = true): Promise<PortalUserRow> {
  const businessId = tokenBusiness(token);
  const query = trx('portal_users').where({ business_id: businessId, invitation_token_hash: tokenHash(token), status: 'INVITED' });
  if (forUpdate) query.forUpdate();
  const row = businessId ? ((await query.first()) as PortalUserRow | undefined) : undefined;
  if (row) found({ businessId: row.business_id, userId: row.id });
  if (!row || !row.invitation_expires_at || row.invitation_expires_at <= new Date()) {
    throw new AppError('INVITATION_NOT_FOUND', 'No pending invitation with this token: it is unknown, used or expired. Ask for a new invitation.');
  }
  return row;
}

/**
 * Accepts invitation `token`: sets the user's password (argon2id) and draws its TOTP secret,
 * answered once as a secret and an otpauth:// URI (RFC 6238) for an authenticator app; the
 * user stays INVITED until confirmTotp. Accepting again before that draws a new secret.
 * Throws 404 INVITATION_NOT_FOUND.
 */
export async function acceptInvitation(
  db: Knex,
  keys: SealingKeys,
  req: Schemas['PortalUserInvitationAcceptRequest'],
  found: (subject: { businessId: string; userId: string }) => void,
): Promise<Schemas['PortalUserTotpEnrolment']> {
  // The token is checked before the password is hashed (a wrong one costs no hash), and the
  // hash is made before the transaction (its time holds no lock).
  await invitedUser(db, req.token, found, false);
  const passwordHash = await argon2.hash(req.password, ARGON2_OPTIONS);
  return db.transaction(async (trx) => {
    const row = await invitedUser(trx, req.token, found);
    const secret = new Secret({ size: 20 });
    const sealed = sealValue(keys, sealContext(row), secret.base32);
    await trx('portal_users')
      .where({ id: row.id, business_id: row.business_id })
      .update({ password_hash: passwordHash, totp_secret_sealed: sealed.sealed, totp_key_version: sealed.keyVersion, totp_last_step: null, updated_at: trx.fn.now(3) });
    return { user_id: row.id, email: row.email, totp_secret: secret.base32, totp_uri: totpOf(row, secret).toString() };
  });
}

/**
 * Confirms the TOTP enrolment of invitation `token` with a first `code`: the user becomes
 * ACTIVE, the invitation is used, and RECOVERY_CODES recovery codes are answered, this once.
 * Throws 404 INVITATION_NOT_FOUND, 409 INVITATION_NOT_ACCEPTED (no password set yet), 400
 * TOTP_INCORRECT.
 */
export async function confirmTotp(
  db: Knex,
  keys: SealingKeys,
  req: Schemas['PortalUserTotpConfirmRequest'],
  found: (subject: { businessId: string; userId: string }) => void,
): Promise<Schemas['PortalUserActivation']> {
  return db.transaction(async (trx) => {
    const row = await invitedUser(trx, req.token, found);
    if (!row.password_hash || !row.totp_secret_sealed) {
      throw new AppError('INVITATION_NOT_ACCEPTED', 'Accept the invitation first (set a password): it draws the TOTP secret this code comes from.');
    }
    const step = totpStep(keys, row, req.code);
    if (step === null) throw new AppError('TOTP_INCORRECT', 'The code is not the current one of this authenticator: check the device clock and enter the code shown now.');
    const codes = Array.from({ length: RECOVERY_CODES }, () => (randomBytes(10).toString('hex').match(/.{5}/g) as string[]).join('-'));
    const [updated] = (await trx('portal_users')
      .where({ id: row.id, business_id: row.business_id })
      .update({
        status: 'ACTIVE',
        activated_at: trx.fn.now(3),
        updated_at: trx.fn.now(3),
        totp_last_step: step,
        recovery_code_hashes: codes.map(tokenHash),
        invitation_token_hash: null,
        invitation_expires_at: null,
      })
      .returning('*')) as PortalUserRow[];
    return { user: toUserView(updated), recovery_codes: codes };
  });
}

/** The sandbox's invitation messages of `businessId`, newest first (the token as the e-mail carries it). Throws 400 INVALID_CURSOR. */
export async function listSandboxUserInvitations(db: Knex, businessId: string, page: PageQuery): Promise<Page<Schemas['SandboxUserInvitation']>> {
  type Row = { id: string; user_id: string; email: string; token: string; expires_at: Date; created_at: Date };
  return paginate<Row, Schemas['SandboxUserInvitation']>(db('sandbox_user_invitations').where({ business_id: businessId }), page, (rows) =>
    rows.map((r) => ({
      id: r.id,
      user_id: r.user_id,
      email: r.email,
      token: r.token,
      link: `/portal/#invitation=${r.token}`,
      expires_at: r.expires_at.toISOString(),
      created_at: r.created_at.toISOString(),
    })),
  );
}

/**
 * Makes `owner` an ACTIVE owner of `businessId` with the given password and base32 TOTP
 * secret, unless a user with that email exists (then nothing changes): the sandbox's demo
 * owner, whose credentials are documented (README.md), so that a person signs in to the
 * portal at once. Not for anything but the sandbox: its secrets are public.
 */
export async function ensureSandboxOwner(
  db: Knex,
  keys: SealingKeys,
  businessId: string,
  owner: { email: string; name: string; password: string; totpSecret: string },
): Promise<void> {
  const id = randomUUID();
  const email = owner.email.toLowerCase();
  const claimed = await db('portal_user_emails').insert({ email, business_id: businessId, user_id: id }).onConflict('email').ignore().returning('email');
  if (claimed.length === 0) return;
  const sealed = sealValue(keys, sealContext({ business_id: businessId, id }), Secret.fromBase32(owner.totpSecret).base32);
  await db('portal_users').insert({
    id,
    business_id: businessId,
    email,
    name: owner.name,
    role: 'owner',
    status: 'ACTIVE',
    password_hash: await argon2.hash(owner.password, ARGON2_OPTIONS),
    totp_secret_sealed: sealed.sealed,
    totp_key_version: sealed.keyVersion,
    recovery_code_hashes: [],
    activated_at: db.fn.now(3),
  });
}
