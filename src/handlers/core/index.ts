/** Every core operation's handler, by operationId (compile error if one is missing). */
import type { operations } from '../../../generated/types/core.js';
import type { OperationMap } from '../../http/operation.js';
import { docsOperations } from './docs.js';
import { gatewayOperations } from './gateway.js';
import { metricsOperations } from './metrics.js';

export const coreOperations: OperationMap<operations> = {
  ...gatewayOperations,
  ...docsOperations,
  ...metricsOperations,
};
