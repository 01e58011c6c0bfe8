/**
 * Portal users (src/businesses/users.ts) and their sessions (src/businesses/sessions.ts).
 *
 *   - `portal_users`, a tenant table: a business's people with their role, status
 *     (INVITED, ACTIVE, REMOVED), argon2id password hash, sealed TOTP secret (the
 *     TOTP_SECRET key family), the last TOTP time step used (a code is taken once), the
 *     hashes of their unused recovery codes, the hash of their pending invitation's token
 *     and its end, and the failed sign-ins counted towards a lock-out.
 *   - `portal_user_emails`, a directory (src/db/tableClasses.ts): an email names one user
 *     across businesses, since sign-in starts from the email alone; written in the
 *     transaction that invites the user, deleted with the user's removal.
 *   - `portal_sessions`, a tenant table: a session by the SHA-256 of its secret, with the
 *     SHA-256 of its CSRF token, when it was last used (idle timeout) and when it ends
 *     (absolute lifetime). The cookie carries the business id beside the secret, so the
 *     lookup is a tenant's.
 *   - `sandbox_user_invitations`: the sandbox's outbox of invitation messages (the token in
 *     clear, as the e-mail would carry it), read by a test helper as the SMS messages are.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE portal_users (
      id uuid NOT NULL,
      business_id uuid NOT NULL,
      email text NOT NULL,
      name text NOT NULL,
      role text NOT NULL,
      status text NOT NULL,
      password_hash text,
      totp_secret_sealed text,
      totp_key_version integer,
      totp_last_step bigint,
      recovery_code_hashes text[] NOT NULL DEFAULT '{}',
      invitation_token_hash text,
      invitation_expires_at timestamp(3) with time zone,
      failed_sign_ins integer NOT NULL DEFAULT 0,
      locked_until timestamp(3) with time zone,
      created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      activated_at timestamp(3) with time zone,
      removed_at timestamp(3) with time zone,
      CONSTRAINT portal_users_pkey PRIMARY KEY (id, business_id),
      CONSTRAINT portal_users_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
      CONSTRAINT portal_users_status_check CHECK (status IN ('INVITED', 'ACTIVE', 'REMOVED'))
    );
    CREATE INDEX portal_users_business_id_created_at_id_index ON portal_users (business_id, created_at, id);
    CREATE UNIQUE INDEX portal_users_invitation_token_hash_unique ON portal_users (invitation_token_hash, business_id);

    CREATE TABLE portal_user_emails (
      email text NOT NULL,
      business_id uuid NOT NULL,
      user_id uuid NOT NULL,
      CONSTRAINT portal_user_emails_pkey PRIMARY KEY (email)
    );

    CREATE TABLE portal_sessions (
      id_hash text NOT NULL,
      business_id uuid NOT NULL,
      user_id uuid NOT NULL,
      csrf_token_hash text NOT NULL,
      created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      last_used_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      expires_at timestamp(3) with time zone NOT NULL,
      ended_at timestamp(3) with time zone,
      CONSTRAINT portal_sessions_pkey PRIMARY KEY (id_hash, business_id),
      CONSTRAINT portal_sessions_user_foreign FOREIGN KEY (user_id, business_id) REFERENCES portal_users (id, business_id)
    );
    CREATE INDEX portal_sessions_business_id_user_id_index ON portal_sessions (business_id, user_id);

    CREATE TABLE sandbox_user_invitations (
      id uuid NOT NULL,
      business_id uuid NOT NULL,
      user_id uuid NOT NULL,
      email text NOT NULL,
      token text NOT NULL,
      expires_at timestamp(3) with time zone NOT NULL,
      created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      CONSTRAINT sandbox_user_invitations_pkey PRIMARY KEY (id, business_id),
      CONSTRAINT sandbox_user_invitations_user_foreign FOREIGN KEY (user_id, business_id) REFERENCES portal_users (id, business_id)
    );
    CREATE INDEX sandbox_user_invitations_business_id_created_at_id_index ON sandbox_user_invitations (business_id, created_at, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE sandbox_user_invitations; DROP TABLE portal_sessions; DROP TABLE portal_user_emails; DROP TABLE portal_users;');
}
