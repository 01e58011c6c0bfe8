/** Operation map type of the closed-loop document (webhooks are sent, not served). */
import type { operations } from '../../../generated/types/closed-loop.js';
import type { OperationMap } from '../../http/operation.js';

/** The operationIds of the document's `webhooks` section: events the service sends. */
export type WebhookOperationId =
  | 'onOnboardingComplete'
  | 'onTopupComplete'
  | 'onPayoutPending'
  | 'onPayoutProcessing'
  | 'onPayoutFailed'
  | 'onPayoutCompleted'
  | 'onWebhookTest';

export type ClosedLoopOperations = Omit<operations, WebhookOperationId>;
export type ClosedLoopMap = OperationMap<ClosedLoopOperations>;
