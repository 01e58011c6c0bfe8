/**
 * A business's portal users and their sessions: invite, list, read, update, remove a user;
 * accept an invitation, confirm its TOTP; sign in, read the session, sign out (here or
 * everywhere); and the sandbox's invitation messages.
 */
import type { Context as KoaContext } from 'koa';
import type { operations } from '../../../generated/types/core.js';
import {
  acceptInvitation,
  confirmTotp,
  currentSession,
  endSessions,
  reauthenticate,
  getUser,
  inviteUser,
  listSandboxUserInvitations,
  listUsers,
  removeUser,
  sessionCookie,
  signIn,
  updateUser,
} from '../../businesses/index.js';
import { businessIdOf, heldPermissions, type OperationMap } from '../../http/operation.js';
import { AppError } from '../../kernel/errors.js';
import { SESSION_COOKIE, type Principal } from '../../kernel/services.js';
import { requireSandbox } from './requestEnv.js';

type PortalUserOperations = Pick<
  operations,
  | 'invitePortalUser'
  | 'listPortalUsers'
  | 'getPortalUser'
  | 'updatePortalUser'
  | 'removePortalUser'
  | 'acceptPortalUserInvitation'
  | 'confirmPortalUserTotp'
  | 'createPortalSession'
  | 'getPortalSession'
  | 'reauthenticatePortalSession'
  | 'endPortalSession'
  | 'endPortalSessions'
  | 'listSandboxUserInvitations'
>;


/** Records whose account a public operation acts for, as soon as it is known, for the audit hook. */
const subjectOf =
  (koa: KoaContext) =>
  (subject: { businessId: string; userId: string }): void => {
    koa.state.auditSubject = subject;
  };

/** The session cookie a portal user's request came with; 401 UNAUTHORIZED for a bearer token, which has no session. */
function sessionOf(ctx: { principal: Principal | null; koa: KoaContext }): string {
  const cookie = ctx.koa.cookies.get(SESSION_COOKIE);
  if (!ctx.principal?.userId || !cookie) {
    throw new AppError('UNAUTHORIZED', "This operation is a portal session's own: send the session cookie (a bearer token has no session).", {
      headers: { 'WWW-Authenticate': 'Bearer realm="wallet-service"' },
    });
  }
  return cookie;
}

export const portalUserOperations = {
  invitePortalUser: {
    access: 'business',
    idempotent: 'transaction',
    handle: async (ctx) => {
      const user = await inviteUser(ctx.db, businessIdOf(ctx), ctx.body, heldPermissions(ctx), ctx.services.config.sandbox);
      return { status: 201, body: user, headers: { Location: `/portal-users/${user.id}` } };
    },
  },
  listPortalUsers: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listUsers(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  getPortalUser: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getUser(ctx.db, businessIdOf(ctx), ctx.path.user_id) }),
  },
  updatePortalUser: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await updateUser(ctx.db, businessIdOf(ctx), ctx.path.user_id, ctx.body, heldPermissions(ctx)) }),
  },
  removePortalUser: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await removeUser(ctx.db, businessIdOf(ctx), ctx.path.user_id, heldPermissions(ctx)) }),
  },
  acceptPortalUserInvitation: {
    access: 'public',
    countsAddress: true,
    handle: async (ctx) => ({ status: 200, body: await acceptInvitation(ctx.db, ctx.services.keys.totpSecrets, ctx.body, subjectOf(ctx.koa)) }),
  },
  confirmPortalUserTotp: {
    access: 'public',
    countsAddress: true,
    handle: async (ctx) => ({ status: 200, body: await confirmTotp(ctx.db, ctx.services.keys.totpSecrets, ctx.body, subjectOf(ctx.koa)) }),
  },
  createPortalSession: {
    access: 'public',
    countsAddress: true,
    countsSignIns: true,
    handle: async (ctx) => {
      const { config } = ctx.services;
      const { session, cookie } = await signIn(ctx.db, ctx.services.keys.totpSecrets, config, ctx.body, ctx.koa.ip, subjectOf(ctx.koa));
      return { status: 201, body: session, headers: { 'Set-Cookie': sessionCookie(cookie, config.portalSessionLifetimeMinutes * 60) } };
    },
  },
  reauthenticatePortalSession: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await reauthenticate(ctx.db, ctx.services.keys.totpSecrets, ctx.services.config, sessionOf(ctx), ctx.body),
    }),
  },
  getPortalSession: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await currentSession(ctx.db, ctx.services.config, sessionOf(ctx)) }),
  },
  endPortalSession: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: { ended_sessions: await endSessions(ctx.db, sessionOf(ctx), false) },
      headers: { 'Set-Cookie': sessionCookie('', 0) },
    }),
  },
  endPortalSessions: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: { ended_sessions: await endSessions(ctx.db, sessionOf(ctx), true) },
      headers: { 'Set-Cookie': sessionCookie('', 0) },
    }),
  },
  listSandboxUserInvitations: {
    access: 'business',
    handle: async (ctx) => {
      requireSandbox(ctx.services);
      return { status: 200, body: await listSandboxUserInvitations(ctx.db, businessIdOf(ctx), ctx.query) };
    },
  },
} satisfies OperationMap<PortalUserOperations>;
