/**
 * A card's page (`#/cards/<id>`, core `getCard`): its facts with links to its wallet and to
 * the card it replaces or that replaced it, who issued it, and its actions. Events are
 * recorded about payouts and customers, not cards: a card has no timeline of its own.
 */
import { html } from '../preact-htm.js';
import { Id, words } from '../ui.js';
import { When } from '../lists.js';
import { CreatedBy } from '../creator.js';
import { Actions } from './actions.js';
import { ObjectFrame, ObjectHeading } from './frame.js';
import { ObjectLink } from './links.js';

export function CardPage({ api, id }) {
  return html`<${ObjectFrame} what="Card" load=${() => api.get(`/cards/${encodeURIComponent(id)}`)} deps=${[api, id]}>
    ${(card, reload) => html`<${ObjectHeading} title=${`Card •••• ${card.last_4_digits}`} />
      <section class="card" aria-label="Card facts">
        <dl class="facts">
          <dt>Card</dt><dd><${Id} value=${card.id} label="card id" /></dd>
          <dt>Number</dt><dd>•••• ${card.last_4_digits}</dd>
          <dt>Type</dt><dd>${words(card.type)}</dd>
          <dt>Status</dt><dd data-field="card-status">${words(card.status)}</dd>
          <dt>Expires</dt><dd>${card.expiry_date}</dd>
          <dt>Wallet</dt><dd><${ObjectLink} kind="wallets" id=${card.account_id}>Open the card’s wallet</${ObjectLink}></dd>
          <dt>Replaces</dt><dd><${ObjectLink} kind="cards" id=${card.replaces_card_id} /></dd>
          <dt>Replaced by</dt><dd><${ObjectLink} kind="cards" id=${card.replaced_by_card_id} /></dd>
          <dt>Created</dt><dd><${When} at=${card.created_at} /></dd>
        </dl>
        <${CreatedBy} api=${api} id=${card.id} operation="issueCard" />
      </section>
      <${Actions} kind="cards" api=${api} object=${card} reload=${reload} />`}
  </${ObjectFrame}>`;
}
