/** Mobile number change: from the profile settings (seed E7) and from the login screen. */
import type { operations } from '../../../generated/types/core.js';
import { runAfterCommit } from '../../customers/index.js';
import {
  getMobileNumberChange,
  initiateLoginIdentityVerification,
  startMobileNumberChange,
  verifyMobileNumberChangeOtp,
} from '../../customers/index.js';
import { receiveMobileOwnershipResult } from '../../customers/index.js';
import type { OperationMap } from '../../http/operation.js';
import { callback } from './customers.js';
import { requestEnv } from './requestEnv.js';

type MobileNumberChangeOperations = Pick<
  operations,
  | 'changeMobileNumber'
  | 'verifyMobileNumberChangeOtp'
  | 'getMobileNumberChangeStatus'
  | 'changeMobileNumberFromLogin'
  | 'verifyLoginMobileNumberChangeOtp'
  | 'initiateLoginIdentityVerification'
  | 'getLoginMobileNumberChangeStatus'
  | 'receiveMobileOwnershipResult'
>;

export const mobileNumberChangeOperations = {
  changeMobileNumber: {
    access: 'business',
    async handle(ctx) {
      const env = await requestEnv(ctx);
      const body = await startMobileNumberChange(env, { channel: 'PROFILE', customerId: ctx.body.customer_id }, ctx.body);
      await runAfterCommit(env); // the sandbox ownership check's result, delivered now that the request committed
      return { status: 200, body };
    },
  },
  verifyMobileNumberChangeOtp: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await verifyMobileNumberChangeOtp(await requestEnv(ctx), 'PROFILE', ctx.path.session_id, ctx.body.otp) }),
  },
  getMobileNumberChangeStatus: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getMobileNumberChange(await requestEnv(ctx), 'PROFILE', ctx.path.session_id) }),
  },
  changeMobileNumberFromLogin: {
    access: 'business',
    async handle(ctx) {
      const env = await requestEnv(ctx);
      const body = await startMobileNumberChange(env, { channel: 'LOGIN', nationalId: ctx.body.national_id }, ctx.body);
      await runAfterCommit(env);
      return { status: 200, body };
    },
  },
  verifyLoginMobileNumberChangeOtp: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await verifyMobileNumberChangeOtp(await requestEnv(ctx), 'LOGIN', ctx.path.session_id, ctx.body.otp) }),
  },
  initiateLoginIdentityVerification: {
    access: 'business',
    async handle(ctx) {
      const env = await requestEnv(ctx);
      await initiateLoginIdentityVerification(env, ctx.path.session_id, ctx.body);
      await runAfterCommit(env);
      return { status: 200, body: await getMobileNumberChange(env, 'LOGIN', ctx.path.session_id) };
    },
  },
  getLoginMobileNumberChangeStatus: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getMobileNumberChange(await requestEnv(ctx), 'LOGIN', ctx.path.session_id) }),
  },
  receiveMobileOwnershipResult: callback(receiveMobileOwnershipResult),
} satisfies OperationMap<MobileNumberChangeOperations>;
