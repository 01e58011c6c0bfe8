/** Onboarding: start, verify and resend the code, read and cancel a session. */
import type { operations } from '../../../generated/types/core.js';
import {
  cancelOnboardingSession,
  getOnboardingSession,
  resendOnboardingOtp,
  startOnboarding,
  verifyOnboardingOtp,
} from '../../domain/onboarding.js';
import type { OperationMap } from '../../http/operation.js';
import { flowEnv } from './flowEnv.js';

type OnboardingOperations = Pick<
  operations,
  'startOnboarding' | 'getOnboardingSession' | 'verifyOnboardingOtp' | 'resendOnboardingOtp' | 'cancelOnboardingSession'
>;

export const onboardingOperations = {
  startOnboarding: {
    access: 'business',
    handle: async (ctx) => ({ status: 201, body: await startOnboarding(await flowEnv(ctx), ctx.body) }),
  },
  getOnboardingSession: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getOnboardingSession(await flowEnv(ctx), ctx.path.session_id) }),
  },
  verifyOnboardingOtp: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await verifyOnboardingOtp(await flowEnv(ctx), ctx.path.session_id, ctx.body.otp) }),
  },
  resendOnboardingOtp: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await resendOnboardingOtp(await flowEnv(ctx), ctx.path.session_id, ctx.body) }),
  },
  cancelOnboardingSession: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await cancelOnboardingSession(await flowEnv(ctx), ctx.path.session_id, ctx.body) }),
  },
} satisfies OperationMap<OnboardingOperations>;
