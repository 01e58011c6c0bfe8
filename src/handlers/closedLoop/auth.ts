/** Auth: createToken (OAuth2 client-credentials grant; form or JSON body; Basic or body client authentication). */
import { authenticateClient } from '../../businesses/index.js';
import { AppError, invalidField } from '../../kernel/errors.js';
import { issueToken } from '../../http/auth.js';
import type { ClosedLoopMap } from './types.js';

/** RFC 6749 §2.3.1: Basic credentials are form-encoded before base64. */
const formDecode = (value: string): string => decodeURIComponent(value.replace(/\+/g, ' '));

/**
 * The client credentials of a token request: from `Authorization: Basic …` or from
 * the body, never both (RFC 6749 §2.3: one authentication method per request).
 * Throws 400 VALIDATION_ERROR when both or neither are given, 401 INVALID_CLIENT
 * for a malformed Basic header.
 */
function clientCredentials(authorization: string, body: { client_id?: string; client_secret?: string }): { id: string; secret: string } {
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization);
  const inBody = body.client_id !== undefined || body.client_secret !== undefined;
  if (basic) {
    if (inBody) throw invalidField('/client_id', 'must not be sent when the client authenticates with HTTP Basic');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    try {
      if (colon > 0) return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
    } catch {
      // malformed percent-encoding: refused below like any unreadable credentials
    }
    throw invalidClient();
  }
  if (body.client_id === undefined) throw invalidField('/client_id', 'is required without HTTP Basic client authentication');
  if (body.client_secret === undefined) throw invalidField('/client_secret', 'is required without HTTP Basic client authentication');
  return { id: body.client_id, secret: body.client_secret };
}

function invalidClient(): AppError {
  return new AppError('INVALID_CLIENT', 'Unknown client_id or wrong client_secret.', {
    headers: { 'WWW-Authenticate': 'Basic realm="wallet-service"' },
  });
}

export const authOperations = {
  createToken: {
    access: 'public',
    countsAddress: true,
    async handle({ body, db, services, koa }) {
      const credentials = clientCredentials(koa.get('authorization'), body);
      const { principal, businessId } = await authenticateClient(db, credentials.id, credentials.secret);
      // A business's key signing in, or failing to, is in its audit log (an unknown id names no business).
      if (businessId) koa.state.auditSubject = { businessId, clientId: credentials.id };
      if (!principal) throw invalidClient();
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
