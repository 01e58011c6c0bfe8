/** Metrics: the Prometheus exposition of this instance (see src/kernel/metrics/metrics.ts). */
import type { operations } from '../../../generated/types/core.js';
import type { OperationMap } from '../../http/operation.js';

export const metricsOperations = {
  getMetrics: {
    access: 'public',
    handle: async ({ services }) => ({
      status: 200,
      body: await services.metrics.registry.metrics(),
      contentType: services.metrics.registry.contentType,
    }),
  },
} satisfies OperationMap<Pick<operations, 'getMetrics'>>;
