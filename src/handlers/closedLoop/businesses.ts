/** Businesses: platform clients create and list; a business client reads and updates only its own. */
import { createBusiness, getBusiness, listBusinesses, updateBusiness } from '../../businesses/index.js';
import { AppError } from '../../kernel/errors.js';
import type { ClosedLoopMap } from './types.js';

export const businessOperations = {
  listBusinesses: {
    access: 'platform',
    handle: async ({ db, query }) => ({ status: 200, body: await listBusinesses(db, query) }),
  },
  createBusiness: {
    access: 'platform',
    idempotent: 'transaction',
    sealReplay: true,
    handle: async ({ db, body }) => ({ status: 201, body: await createBusiness(db, body) }),
  },
  getBusiness: {
    access: 'any',
    async handle({ db, path, principal }) {
      if (principal?.kind === 'BUSINESS' && principal.businessId !== path.business_id) {
        throw new AppError('BUSINESS_NOT_FOUND', `No business ${path.business_id}.`);
      }
      return { status: 200, body: await getBusiness(db, path.business_id) };
    },
  },
  updateBusiness: {
    access: 'any',
    async handle({ db, path, principal, body }) {
      if (principal?.kind === 'BUSINESS' && principal.businessId !== path.business_id) {
        throw new AppError('BUSINESS_NOT_FOUND', `No business ${path.business_id}.`);
      }
      return { status: 200, body: await updateBusiness(db, path.business_id, body) };
    },
  },
} satisfies Partial<ClosedLoopMap>;
