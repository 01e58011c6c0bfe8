/** Operation map type of the closed-loop document (webhooks are sent, not served). */
import type { operations } from '../../../generated/types/closed-loop.js';
import type { OperationMap } from '../../http/operation.js';

export type ClosedLoopOperations = Omit<operations, 'onTopupComplete'>;
export type ClosedLoopMap = OperationMap<ClosedLoopOperations>;
