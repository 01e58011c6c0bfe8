/**
 * State machines as tables: each event lists the states it may leave and the
 * state it enters. A refused move throws the machine's typed error for the
 * current state (409, a code naming that state) and changes nothing.
 * The same tables are published in the API documents.
 */
import type { AppError } from '../errors.js';

export interface Move<S extends string> {
  from: readonly S[];
  to: S;
}

export interface StateMachine<S extends string, E extends string> {
  readonly moves: Readonly<Record<E, Move<S>>>;
  /** The state `event` leads to from `state`; throws the refusal when the move is not allowed. */
  next(state: S, event: E): S;
  /** True when `event` may happen in `state`. */
  allows(state: S, event: E): boolean;
}

/** A machine over `moves`; `refusal(state)` is the error of a move not allowed in `state`. */
export function stateMachine<S extends string, E extends string>(moves: Record<E, Move<S>>, refusal: (state: S) => AppError): StateMachine<S, E> {
  return {
    moves,
    allows: (state, event) => moves[event].from.includes(state),
    next(state, event) {
      if (!moves[event].from.includes(state)) throw refusal(state);
      return moves[event].to;
    },
  };
}
