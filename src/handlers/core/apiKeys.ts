/** A business's API keys: create, list, read, update, roll the secret, revoke. */
import type { operations } from '../../../generated/types/core.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, rollApiKeySecret, updateApiKey } from '../../businesses/index.js';
import { businessIdOf, heldPermissions, type OperationMap } from '../../http/operation.js';

type ApiKeyOperations = Pick<operations, 'createApiKey' | 'listApiKeys' | 'getApiKey' | 'updateApiKey' | 'revokeApiKey' | 'rollApiKeySecret'>;

export const apiKeyOperations = {
  createApiKey: {
    access: 'business',
    idempotent: 'transaction',
    // The answer holds the key's secret: its kept copy for a replay is sealed.
    sealReplay: true,
    handle: async (ctx) => {
      const key = await createApiKey(ctx.db, businessIdOf(ctx), ctx.body, heldPermissions(ctx));
      return { status: 201, body: key, headers: { Location: `/api-keys/${key.id}` } };
    },
  },
  listApiKeys: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await listApiKeys(ctx.db, businessIdOf(ctx), ctx.query) }),
  },
  getApiKey: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await getApiKey(ctx.db, businessIdOf(ctx), ctx.path.api_key_id) }),
  },
  updateApiKey: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await updateApiKey(ctx.db, businessIdOf(ctx), ctx.path.api_key_id, ctx.body, heldPermissions(ctx)) }),
  },
  revokeApiKey: {
    access: 'business',
    handle: async (ctx) => ({ status: 200, body: await revokeApiKey(ctx.db, businessIdOf(ctx), ctx.path.api_key_id) }),
  },
  rollApiKeySecret: {
    access: 'business',
    handle: async (ctx) => ({
      status: 200,
      body: await rollApiKeySecret(ctx.db, businessIdOf(ctx), ctx.path.api_key_id, ctx.body?.previous_secret_valid_seconds),
    }),
  },
} satisfies OperationMap<ApiKeyOperations>;
