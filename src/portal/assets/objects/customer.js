/**
 * A customer's page (`#/customers/<id>`, core `getCustomer`): its facts, its wallet and its
 * cards with links to their pages (../pages/customers.js CustomerDetail), who started its
 * onboarding, its actions and its timeline (its `onboarding.complete`; its payouts' events
 * are on each payout's page).
 */
import { html } from '../preact-htm.js';
import { CustomerDetail } from '../pages/customers.js';
import { Actions } from './actions.js';
import { ObjectFrame, ObjectHeading } from './frame.js';
import { ObjectTimeline } from './timeline.js';

export function CustomerPage({ api, id }) {
  return html`<${ObjectFrame} what="Customer" load=${() => api.get(`/customers/${encodeURIComponent(id)}`)} deps=${[api, id]}>
    ${(customer, reload) => html`<${ObjectHeading} title=${`Customer ${customer.full_name ?? customer.mobile_number}`} />
      <${CustomerDetail} api=${api} customer=${customer} />
      <${Actions} kind="customers" api=${api} object=${customer} reload=${reload} />
      <${ObjectTimeline} api=${api} objectId=${customer.id} createdAt=${customer.created_at} label="Customer timeline" />`}
  </${ObjectFrame}>`;
}
