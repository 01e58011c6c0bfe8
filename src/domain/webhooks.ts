/**
 * Webhook endpoints (seed E3, preview): registrations are stored with status
 * DISABLED and receive no deliveries while the feature is in preview; events
 * are still recorded in the outbox (`outbox_events`) by the operations that
 * cause them.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { paginate, type Page, type PageQuery } from './pagination.js';

type Schemas = components['schemas'];
export type WebhookEndpointView = Schemas['WebhookEndpoint'];

interface EndpointRow {
  id: string;
  url: string;
  events: Schemas['WebhookEventCode'][];
  status: 'DISABLED';
  created_at: Date;
}

/** Stores an endpoint registration (status DISABLED during the preview). */
export async function createWebhookEndpoint(db: Knex, businessId: string, req: Schemas['WebhookEndpointCreateRequest']): Promise<void> {
  await db('webhook_endpoints').insert({
    id: randomUUID(),
    business_id: businessId,
    url: req.url,
    secret: req.secret,
    events: JSON.stringify(req.events),
    status: 'DISABLED',
  });
}

/** A page of the business's endpoints, newest first (secrets are never returned). */
export async function listWebhookEndpoints(db: Knex, businessId: string, page: PageQuery): Promise<Page<WebhookEndpointView>> {
  const query = db('webhook_endpoints').where({ business_id: businessId }).select('id', 'url', 'events', 'status', 'created_at');
  return paginate<EndpointRow, WebhookEndpointView>(query, page, (rows) =>
    rows.map((r) => ({ id: r.id, url: r.url, events: r.events, status: r.status, created_at: r.created_at.toISOString() })),
  );
}
