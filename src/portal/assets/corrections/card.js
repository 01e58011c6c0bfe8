/**
 * The corrections of a card (core `Card`), by core `changeCardStatus`, which needs no code
 * of the customer (`cards:write`): freeze it for a while (`TEMPORARILY_BLOCKED`), unfreeze it
 * (`ACTIVE`), or block it for good as lost, stolen or closed, along the card state table of
 * core.yaml's Cards tag. A final state (`LOST`, `STOLEN`, `CLOSED`) takes no correction.
 */
import { html } from '../preact-htm.js';
import { words } from '../ui.js';
import { Correction, useDone } from './review.js';

/** The final states a block chooses from, with what each means. */
const ENDS = {
  LOST: 'reported lost',
  STOLEN: 'reported stolen',
  CLOSED: 'closed for good',
};

/** The states a card can leave by changeCardStatus. */
const LIVE = ['PENDING_ACTIVATION', 'ACTIVE', 'TEMPORARILY_BLOCKED'];

/** The reversible move from each state that has one: freeze an active card, unfreeze a frozen one. */
const TOGGLES = {
  ACTIVE: { verb: 'freeze', to: 'TEMPORARILY_BLOCKED', summary: 'it is temporarily blocked', after: 'Temporarily blocked: every purchase is declined until it is unfrozen.' },
  TEMPORARILY_BLOCKED: { verb: 'unfreeze', to: 'ACTIVE', summary: 'it is active again', after: 'Active: purchases are authorised again.' },
};

/** The card as words: "Card •••• 4242". */
const cardName = (card) => `Card •••• ${card.last_4_digits}`;

/** A change to `status`: its PATCH under the review's key. */
const change = (api, card, status, key) => api.patch(`/cards/${card.id}`, { status }, { idempotencyKey: key });

/**
 * Freeze, Unfreeze and Block for `card`, as its state allows, when the user holds
 * `cards:write`; nothing otherwise. `onDone(card)` with the card in its new state.
 * @param {{ api: any, card: any, onDone?: (card: any) => void }} props
 */
export function CardCorrections({ api, card, onDone }) {
  const { said, onDone: changed } = useDone(onDone);
  if (!api.can('cards:write') || (!LIVE.includes(card.status) && !said)) return null;
  const name = cardName(card);
  const done = (c) => `${cardName(c)} is now ${words(c.status).toLowerCase()}.`;
  const toggle = TOGGLES[card.status];
  return html`<div class="corrections" role="group" aria-label=${`Corrections of ${name.toLowerCase()}`}>
    ${toggle
      ? html`<${Correction} id=${`${toggle.verb}-${card.id}`} label=${words(toggle.verb)}
          review=${async () => ({
            summary: `${words(toggle.verb)} ${name.toLowerCase()}: ${toggle.summary}.`,
            facts: [['Now', words(card.status)], ['After', toggle.after], ['Customer', 'No code is asked of the customer.']],
          })}
          send=${(v, key) => change(api, card, toggle.to, key)} done=${done} onDone=${changed} />`
      : null}
    ${LIVE.includes(card.status) ? html`<${Correction} id=${`block-${card.id}`} label="Block" danger initial=${{ status: 'LOST' }}
      fields=${(v, set, id) => html`<div class="field">
        <label for=${`${id}-status`}>Block as</label>
        <select id=${`${id}-status`} value=${v.status} onChange=${(e) => set('status')(e.currentTarget.value)}>
          ${Object.entries(ENDS).map(([s, meaning]) => html`<option value=${s}>${words(s)}: ${meaning}</option>`)}
        </select></div>`}
      review=${async (v) => ({
        summary: `Block ${name.toLowerCase()} for good as ${words(v.status).toLowerCase()}.`,
        facts: [['Now', words(card.status)], ['After', `${words(v.status)} (${ENDS[v.status]}): final, it cannot be unblocked; a lost or stolen card can be replaced in the customer’s app.`], ['Customer', 'No code is asked of the customer.']],
      })}
      send=${(v, key) => change(api, card, v.status, key)} done=${done} onDone=${changed} />` : null}
    ${said}
  </div>`;
}
