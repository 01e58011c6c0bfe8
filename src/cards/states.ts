/**
 * The state machines of card issuances and cards (published in core.yaml, tag
 * Cards). A refused move is 409 CARD_STATUS_NOT_ALLOWED (the seed's code for a
 * card issuance transition not allowed, E5), naming the current state, and
 * changes nothing.
 *
 * Issuance: PENDING_COMPLETION → (complete: the code is sent)
 * PENDING_OTP_VERIFICATION → (verify OTP) ISSUED; both live states expire.
 * Card: a temporary block can be undone; LOST, STOLEN and CLOSED are final;
 * a physical card waits in PENDING_ACTIVATION until activated.
 */
import { AppError } from '../kernel/errors.js';
import { stateMachine, type StateMachine } from '../kernel/stateMachine.js';

export const CARD_ISSUANCE_STATES = ['PENDING_COMPLETION', 'PENDING_OTP_VERIFICATION', 'ISSUED', 'EXPIRED'] as const;
export type CardIssuanceState = (typeof CARD_ISSUANCE_STATES)[number];
export type CardIssuanceEvent = 'COMPLETE' | 'VERIFY_OTP' | 'EXPIRE';

const LIVE_ISSUANCE: CardIssuanceState[] = ['PENDING_COMPLETION', 'PENDING_OTP_VERIFICATION'];

export const cardIssuanceMachine = stateMachine<CardIssuanceState, CardIssuanceEvent>(
  CARD_ISSUANCE_STATES,
  {
    // The code is sent (again, while the issuance waits for it: a new code replaces the old).
    COMPLETE: { from: LIVE_ISSUANCE, to: 'PENDING_OTP_VERIFICATION' },
    // The right code: the card is created.
    VERIFY_OTP: { from: ['PENDING_OTP_VERIFICATION'], to: 'ISSUED' },
    // Read lazily: a live issuance past its `expires_at` (business clock).
    EXPIRE: { from: LIVE_ISSUANCE, to: 'EXPIRED' },
  },
  (state) => new AppError('CARD_STATUS_NOT_ALLOWED', `The card issuance is ${state}; this step is not allowed now.`),
);

/** States an issuance can still leave. */
export const LIVE_ISSUANCE_STATES: readonly CardIssuanceState[] = LIVE_ISSUANCE;

export const CARD_STATES = ['PENDING_ACTIVATION', 'ACTIVE', 'TEMPORARILY_BLOCKED', 'LOST', 'STOLEN', 'CLOSED'] as const;
export type CardState = (typeof CARD_STATES)[number];
export type CardEvent =
  | 'ACTIVATE'
  | 'BLOCK'
  | 'UNBLOCK'
  | 'REPORT_LOST'
  | 'REPORT_STOLEN'
  | 'CLOSE'
  | 'SET_PIN'
  | 'CONVERT'
  | 'REPLACE_DAMAGED'
  | 'REPLACE_EXPIRED'
  | 'REPLACE_LOST'
  | 'REPLACE_STOLEN';

const NOT_ENDED: CardState[] = ['PENDING_ACTIVATION', 'ACTIVE', 'TEMPORARILY_BLOCKED'];

/**
 * The card's moves; each is refused with the state the card is in. A move
 * without `to` keeps the state (the step changes something else). The OTP-guarded
 * steps (./steps.ts) are checked when asked for and again when their code
 * is verified.
 */
export const cardMachine: StateMachine<CardState, CardEvent> = stateMachine<CardState, CardEvent>(
  CARD_STATES,
  {
  // A physical card, once the customer has it (activateCard + its code).
  ACTIVATE: { from: ['PENDING_ACTIVATION'], to: 'ACTIVE' },
  BLOCK: { from: ['ACTIVE'], to: 'TEMPORARILY_BLOCKED' },
  UNBLOCK: { from: ['TEMPORARILY_BLOCKED'], to: 'ACTIVE' },
  REPORT_LOST: { from: NOT_ENDED, to: 'LOST' },
  REPORT_STOLEN: { from: NOT_ENDED, to: 'STOLEN' },
  CLOSE: { from: NOT_ENDED, to: 'CLOSED' },
  // Set or update the PIN (setCardPin + its code): before activation too.
  SET_PIN: { from: ['PENDING_ACTIVATION', 'ACTIVE'] },
  // Virtual → physical (convertCardToPhysical + its code), same card: the plastic must be activated.
  CONVERT: { from: ['ACTIVE'], to: 'PENDING_ACTIVATION' },
  // Replacement (replaceCard + its code). Damaged and expired: the old card works until the
  // new one is ACTIVE, then it is CLOSED. Lost and stolen: the old card ends at once (it may
  // already have been reported so with changeCardStatus).
  REPLACE_DAMAGED: { from: ['ACTIVE', 'TEMPORARILY_BLOCKED'] },
  REPLACE_EXPIRED: { from: ['ACTIVE', 'TEMPORARILY_BLOCKED'] },
  REPLACE_LOST: { from: [...NOT_ENDED, 'LOST'], to: 'LOST' },
  REPLACE_STOLEN: { from: [...NOT_ENDED, 'STOLEN'], to: 'STOLEN' },
  },
  (state, event): AppError => {
    const to: CardState | undefined = cardMachine.moves[event].to;
    const asked: string = to ? `become ${to}` : `take the step ${event}`;
    return new AppError('CARD_STATUS_NOT_ALLOWED', `The card is ${state}; it cannot ${asked}.`);
  },
);

/** The event `changeCardStatus` makes for each status it may be asked for. */
export const STATUS_CHANGE_EVENT: Record<Exclude<CardState, 'PENDING_ACTIVATION'>, CardEvent> = {
  ACTIVE: 'UNBLOCK',
  TEMPORARILY_BLOCKED: 'BLOCK',
  LOST: 'REPORT_LOST',
  STOLEN: 'REPORT_STOLEN',
  CLOSED: 'CLOSE',
};
