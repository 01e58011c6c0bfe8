/**
 * The portal's object pages: one per kind of object, at the address `#/<kind>/<id>` (a link
 * of ./links.js), each showing its object's facts, who created it, links to every related
 * object, its Actions (./actions.js) and, where events are recorded about it, its timeline
 * (./timeline.js). `objectOfAddress()` reads the address; the shell (../app.js) shows the
 * object's page for it, and a list page (../pages/) for any other address. An address
 * without the slash (`#payouts/<id>`, as links of older pages and bookmarks have it) names
 * the same object.
 *
 * Each kind: its page component (`{ api, id, more }`, `more` the address's parts after the
 * id), the list page it belongs to (its entry in the navigation) and the permission its
 * read needs (the session's `permissions`).
 */
import { html } from '../preact-htm.js';
import { PayoutPage } from './payout.js';
import { BulkPayoutPage } from './bulk-payout.js';
import { CustomerPage } from './customer.js';
import { WalletPage } from './wallet.js';
import { TransactionPage } from './transaction.js';
import { CardPage } from './card.js';
import { WebhookEndpointPage } from './webhook-endpoint.js';
import { EventPage } from './event.js';
import { ObjectHeading } from './frame.js';

export const KINDS = {
  payouts: { component: PayoutPage, list: 'payouts', permission: 'payouts:read' },
  'bulk-payouts': { component: BulkPayoutPage, list: 'payouts', permission: 'payouts:read' },
  customers: { component: CustomerPage, list: 'customers', permission: 'customers:read' },
  wallets: { component: WalletPage, list: 'wallets', permission: 'wallets:read' },
  transactions: { component: TransactionPage, list: 'wallets', permission: 'wallets:read' },
  cards: { component: CardPage, list: 'customers', permission: 'cards:read' },
  'webhook-endpoints': { component: WebhookEndpointPage, list: 'webhooks', permission: 'webhooks:read' },
  events: { component: EventPage, list: 'events', permission: 'webhooks:read' },
};

/** The object the address names: `{ kind, id, more }`, or null for a list page's address (`#payouts`). */
export function objectOfAddress() {
  const [kind, id, ...more] = window.location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return Object.hasOwn(KINDS, kind) && id ? { kind, id, more } : null;
}

/** The page of `object` (objectOfAddress), or why the signed-in user may not see it. */
export function ObjectPage({ api, object }) {
  const kind = KINDS[object.kind];
  if (!api.can(kind.permission)) {
    return html`<${ObjectHeading} title="Not available" /><p>Your role may not read this object (it needs the ${kind.permission} permission).</p>`;
  }
  const Page = kind.component;
  return html`<${Page} api=${api} id=${object.id} more=${object.more} />`;
}
