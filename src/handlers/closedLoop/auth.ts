/** Auth: createToken (OAuth2 client-credentials grant, JSON body). */
import { authenticateClient } from '../../domain/clients.js';
import { AppError } from '../../errors.js';
import { issueToken } from '../../http/auth.js';
import type { ClosedLoopMap } from './types.js';

export const authOperations = {
  createToken: {
    access: 'public',
    async handle({ body, db, services }) {
      const principal = await authenticateClient(db, body.client_id, body.client_secret);
      if (!principal) throw new AppError('INVALID_CLIENT', 'Unknown client_id or wrong client_secret.');
      const ttl = services.config.tokenTtlSeconds;
      return {
        status: 200,
        body: {
          access_token: await issueToken(principal, services.jwtKey, ttl),
          token_type: 'Bearer',
          expires_in: ttl,
          client_kind: principal.kind,
          business_id: principal.businessId,
        },
      };
    },
  },
} satisfies Partial<ClosedLoopMap>;
