/** Every core operation's handler, by operationId (compile error if one is missing). */
import type { operations } from '../../../generated/types/core.js';
import type { OperationMap } from '../../http/operation.js';
import { apiKeyOperations } from './apiKeys.js';
import { auditOperations } from './audit.js';
import { authOperations } from '../closedLoop/auth.js';
import { businessOperations } from '../closedLoop/businesses.js';
import { bulkPayoutOperations } from './bulkPayouts.js';
import { cardOperations } from './cards.js';
import { cardTestHelperOperations } from './cardTestHelpers.js';
import type { WebhookOperationId } from '../closedLoop/types.js';
import { customerOperations } from './customers.js';
import { eventOperations } from './events.js';
import { gatewayOperations } from './gateway.js';
import { metricsOperations } from './metrics.js';
import { mobileNumberChangeOperations } from './mobileNumberChange.js';
import { onboardingOperations } from './onboarding.js';
import { payoutApprovalOperations } from './payoutApprovals.js';
import { payoutOperations } from './payouts.js';
import { payoutWhitelistOperations } from './payoutWhitelist.js';
import { portalUserOperations } from './portalUsers.js';
import { searchOperations } from './search.js';
import { coreTestHelperOperations } from './testHelpers.js';
import { coreTransactionOperations } from './transactions.js';

/** Every operation of the document but its `webhooks` (events the service sends, not serves). */
export const coreOperations: OperationMap<Omit<operations, WebhookOperationId>> = {
  // The same clients and tokens as the closed-loop API: the same handlers.
  createCoreToken: authOperations.createToken,
  createCoreBusiness: businessOperations.createBusiness,
  ...apiKeyOperations,
  ...portalUserOperations,
  ...onboardingOperations,
  ...customerOperations,
  ...mobileNumberChangeOperations,
  ...cardOperations,
  ...payoutOperations,
  ...payoutWhitelistOperations,
  ...bulkPayoutOperations,
  ...payoutApprovalOperations,
  ...coreTransactionOperations,
  ...eventOperations,
  ...auditOperations,
  ...searchOperations,
  ...coreTestHelperOperations,
  ...cardTestHelperOperations,
  ...gatewayOperations,
  ...metricsOperations,
};
