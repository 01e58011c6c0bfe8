/**
 * Search: one query over the business's payouts, bulk payouts, customers, wallets,
 * transactions, cards and events, composed of each capability's search (its face's), asked
 * in parallel, each for at most SEARCH_TYPE_CAP hits, and only of the types whose read the
 * caller may call (openapi/DESIGN.md, "Search"); the hits merged best first.
 */
import type { Knex } from 'knex';
import type { operations } from '../../../generated/types/core.js';
import { searchWallets } from '../../businesses/index.js';
import { searchCards } from '../../cards/index.js';
import { searchCustomers } from '../../customers/index.js';
import { businessIdOf, heldPermissions, type OperationMap } from '../../http/operation.js';
import type { Permission } from '../../kernel/permissions.js';
import { bestHits, SEARCH_TYPE_CAP, searchTerm, type SearchHit, type SearchTerm } from '../../kernel/search.js';
import { searchTransactions } from '../../ledger/transactionSearch.js';
import { searchBulkPayouts, searchPayouts } from '../../payouts/index.js';
import { searchEvents } from '../../webhooks/index.js';

type Search = (db: Knex, businessId: string, term: SearchTerm, cap: number) => Promise<SearchHit[]>;

/** Each type's search in the answer's order of types, with the permission of the type's own read. */
const SEARCHES: readonly [Permission, Search][] = [
  ['payouts:read', searchPayouts],
  ['payouts:read', searchBulkPayouts],
  ['customers:read', searchCustomers],
  ['wallets:read', searchWallets],
  ['wallets:read', searchTransactions],
  ['cards:read', searchCards],
  ['webhooks:read', searchEvents],
];

/** The default number of hits (the `limit` parameter's). */
const DEFAULT_LIMIT = 20;

export const searchOperations = {
  search: {
    access: 'business',
    async handle(ctx) {
      const businessId = businessIdOf(ctx);
      const term = searchTerm(ctx.query.q);
      const limit = ctx.query.limit ?? DEFAULT_LIMIT;
      const held = heldPermissions(ctx);
      const cap = Math.min(limit, SEARCH_TYPE_CAP);
      const lists = await Promise.all(SEARCHES.map(([permission, search]) => (held.includes(permission) ? search(ctx.db, businessId, term, cap) : [])));
      return { status: 200, body: { data: bestHits(lists, limit) } };
    },
  },
} satisfies OperationMap<Pick<operations, 'search'>>;
