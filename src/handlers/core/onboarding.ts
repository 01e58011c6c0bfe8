/** Onboarding: start, verify and resend the code, read and cancel a session, verify identity, complete (E8). */
import type { operations } from '../../../generated/types/core.js';
import {
  cancelOnboardingSession,
  getOnboardingSession,
  resendOnboardingOtp,
  startOnboarding,
  verifyOnboardingOtp,
} from '../../customers/index.js';
import { completeCustomerInformation } from '../../customers/index.js';
import { runAfterCommit } from '../../customers/index.js';
import { initiateIdentityVerification } from '../../customers/index.js';
import type { OperationMap } from '../../http/operation.js';
import { requestEnv } from './requestEnv.js';

type OnboardingOperations = Pick<
  operations,
  | 'startOnboarding'
  | 'getOnboardingSession'
  | 'verifyOnboardingOtp'
  | 'resendOnboardingOtp'
  | 'cancelOnboardingSession'
  | 'initiateIdentityVerification'
  | 'completeCustomerInformation'
>;

export const onboardingOperations = {
  startOnboarding: {
    access: 'business',
    handle: async (ctx) => ({ status: 201, body: await startOnboarding(await requestEnv(ctx), ctx.body) }),
  },
  getOnboardingSession: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getOnboardingSession(await requestEnv(ctx), ctx.path.session_id) }),
  },
  verifyOnboardingOtp: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await verifyOnboardingOtp(await requestEnv(ctx), ctx.path.session_id, ctx.body.otp) }),
  },
  resendOnboardingOtp: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await resendOnboardingOtp(await requestEnv(ctx), ctx.path.session_id, ctx.body) }),
  },
  cancelOnboardingSession: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await cancelOnboardingSession(await requestEnv(ctx), ctx.path.session_id, ctx.body) }),
  },
  initiateIdentityVerification: {
    access: 'business',
    async handle(ctx) {
      const env = await requestEnv(ctx);
      await initiateIdentityVerification(env, ctx.path.session_id, ctx.body);
      await runAfterCommit(env); // the sandbox providers' results, delivered now that the request committed
      return { status: 200, body: await getOnboardingSession(env, ctx.path.session_id) };
    },
  },
  completeCustomerInformation: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await completeCustomerInformation(await requestEnv(ctx), ctx.body) }),
  },
} satisfies OperationMap<OnboardingOperations>;
