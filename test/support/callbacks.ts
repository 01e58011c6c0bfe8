/**
 * Provider callbacks as the providers send them: signed with the test services' callback
 * secrets (TEST_CALLBACK_SECRETS, through `signatureHeaders`), quoting the reference of
 * the request they answer (read from `provider_requests`), each with an event id.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { acrossBusinesses } from '../../src/db/acrossBusinesses.js';
import { request } from './client.js';
import { signatureHeaders } from './operations.js';
import { running } from './service.js';

/** The reference of the latest request of `kind` made for a session (what a provider's callback quotes); asserts there is one. */
export async function providerReference(sessionId: string, kind: 'IDENTITY' | 'MOBILE_OWNERSHIP' | 'SCREENING'): Promise<string> {
  // As the provider knows it, whatever the business: a read across businesses.
  const row = await acrossBusinesses(running().db, (trx) => trx('provider_requests').where({ subject_id: sessionId, kind }).orderBy('created_at', 'desc').first('id'));
  expect(row, `no ${kind} request for ${sessionId}`).to.not.equal(undefined);
  return row.id;
}

/**
 * Sends a provider callback, signed as the provider would (the screening provider for
 * `/callbacks/screening`, the identity provider for the other two), or with
 * `opts.signature` as the signature header, or signed at `opts.timestamp` (unix seconds);
 * returns the response (not asserted).
 */
export function sendCallback(
  path: '/callbacks/identity-verification' | '/callbacks/screening' | '/callbacks/mobile-ownership',
  body: Record<string, unknown>,
  opts: { timestamp?: number; signature?: string; baseUrl?: string } = {},
) {
  const provider = path === '/callbacks/screening' ? 'SCREENING' : 'IDENTITY_VERIFICATION';
  const headers = opts.signature !== undefined ? { 'X-Provider-Signature': opts.signature } : signatureHeaders({ signedBy: provider }, body, opts.timestamp);
  return request('POST', path, { body, headers, baseUrl: opts.baseUrl });
}

/** A fresh provider event id (`evt_` and 32 hex digits). */
export const newEventId = (): string => `evt_${randomUUID().replaceAll('-', '')}`;
