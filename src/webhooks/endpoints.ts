/**
 * Webhook endpoints (seed E3, preview): a registration is stored ENABLED and
 * receives the deliveries of its event codes (src/webhooks/); a 410 from it makes it
 * DISABLED (reason GONE). Its URL must pass the URL policy (src/webhooks/urlPolicy.ts);
 * its secret is the Standard Webhooks signing secret, stored sealed
 * (src/webhooks/secrets.ts) and never returned.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import type { SealingKeys } from '../kernel/sealing.js';
import { sealEndpointSecret } from './secrets.js';
import { checkRegistrationUrl, type UrlPolicy } from './urlPolicy.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';

type Schemas = components['schemas'];
export type WebhookEndpointView = Schemas['WebhookEndpoint'];

interface EndpointRow {
  id: string;
  url: string;
  events: Schemas['WebhookEventCode'][];
  status: 'ENABLED' | 'DISABLED';
  disabled_reason: 'GONE' | null;
  created_at: Date;
}

/** Stores an endpoint registration, ENABLED, its secret sealed with `keys`; throws 400 WEBHOOK_URL_NOT_ALLOWED. */
export async function createWebhookEndpoint(
  db: Knex,
  policy: UrlPolicy,
  keys: SealingKeys,
  businessId: string,
  req: Schemas['WebhookEndpointCreateRequest'],
): Promise<void> {
  await checkRegistrationUrl(policy, req.url);
  const id = randomUUID();
  await db('webhook_endpoints').insert({
    id,
    business_id: businessId,
    url: req.url,
    ...sealEndpointSecret(keys, id, req.secret),
    events: JSON.stringify(req.events),
    status: 'ENABLED',
  });
}

/** A page of the business's endpoints, newest first (secrets are never returned). */
export async function listWebhookEndpoints(db: Knex, businessId: string, page: PageQuery): Promise<Page<WebhookEndpointView>> {
  const query = db('webhook_endpoints').where({ business_id: businessId }).select('id', 'url', 'events', 'status', 'disabled_reason', 'created_at');
  return paginate<EndpointRow, WebhookEndpointView>(query, page, (rows) =>
    rows.map((r) => ({ id: r.id, url: r.url, events: r.events, status: r.status, disabled_reason: r.disabled_reason, created_at: r.created_at.toISOString() })),
  );
}
