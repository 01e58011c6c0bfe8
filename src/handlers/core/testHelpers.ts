/**
 * Sandbox test helpers of the core API (404 NOT_FOUND when SANDBOX=false):
 * the SMS messages sent for the business, its clock, provider outages, and the
 * events recorded in its outbox.
 */
import type { operations } from '../../../generated/types/core.js';
import { advanceClock } from '../../kernel/clock.js';
import { listEvents } from '../../webhooks/index.js';
import { businessIdOf, type OperationMap } from '../../http/operation.js';
import { setOutage } from '../../providers/outages.js';
import { listSandboxSmsMessages } from '../../providers/sms.js';
import { requireSandbox } from './requestEnv.js';

type TestHelperOperations = Pick<operations, 'listSandboxSmsMessages' | 'advanceSandboxClock' | 'createSandboxProviderOutage' | 'listSandboxOutboxEvents'>;

export const coreTestHelperOperations = {
  listSandboxSmsMessages: {
    access: 'business',
    async handle(ctx) {
      requireSandbox(ctx.services);
      return { status: 200, body: await listSandboxSmsMessages(ctx.db, businessIdOf(ctx), ctx.query) };
    },
  },
  advanceSandboxClock: {
    access: 'business',
    async handle(ctx) {
      requireSandbox(ctx.services);
      return { status: 200, body: await advanceClock(ctx.db, businessIdOf(ctx), ctx.body.advance_seconds) };
    },
  },
  createSandboxProviderOutage: {
    access: 'business',
    async handle(ctx) {
      requireSandbox(ctx.services);
      return { status: 200, body: await setOutage(ctx.db, businessIdOf(ctx), ctx.body.provider, ctx.body.failures) };
    },
  },
  listSandboxOutboxEvents: {
    access: 'business',
    async handle(ctx) {
      requireSandbox(ctx.services);
      return { status: 200, body: await listEvents(ctx.db, businessIdOf(ctx), ctx.query, ctx.apiVersion) };
    },
  },
} satisfies OperationMap<TestHelperOperations>;
