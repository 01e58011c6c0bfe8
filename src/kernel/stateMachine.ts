/**
 * State machines as tables, one form for every resource with states (onboarding
 * and mobile number change sessions, card issuances, cards, payouts): each event
 * lists the states it may leave and the state it enters. A refused move throws the
 * machine's typed error (409, naming the current state) and changes nothing. The
 * same tables are published in the API documents (a tag's description) and
 * test/contract/stateTables.test.ts keeps the two equal. `moveRow` and `expireRowIfDue`
 * persist the moves of a session table; a machine whose moves are applied in SQL
 * under a row lock (payouts) passes the table's `from` and `to` to its statement.
 */
import type { Knex } from 'knex';
import type { AppError } from './errors.js';

/** One event's row of a machine's table: the states it may leave and the state it enters. */
export interface Move<S extends string> {
  from: readonly S[];
  /** The state entered; absent when the event is recorded but the state stays. */
  to?: S;
}

/** A state machine: its states, its table of moves by event, and the checks against it. */
export interface StateMachine<S extends string, E extends string> {
  readonly states: readonly S[];
  readonly moves: Readonly<Record<E, Move<S>>>;
  /** The state `event` leads to from `state`; throws the refusal when the move is not allowed. */
  next(state: S, event: E): S;
  /** True when `event` may happen in `state`. */
  allows(state: S, event: E): boolean;
}

/**
 * A machine over `states` and `moves`; `refusal(state, event)` is the error of
 * `event` when the table does not allow it in `state`.
 */
export function stateMachine<S extends string, E extends string>(
  states: readonly S[],
  moves: Record<E, Move<S>>,
  refusal: (state: S, event: E) => AppError,
): StateMachine<S, E> {
  return {
    states,
    moves,
    allows: (state, event) => moves[event].from.includes(state),
    next(state, event) {
      if (!moves[event].from.includes(state)) throw refusal(state, event);
      return moves[event].to ?? state;
    },
  };
}

/**
 * Applies `event` to a row of `table` locked by the caller (its state in
 * `status`): throws the machine's refusal when the move is not allowed, else
 * writes the new state with `changes` and returns the updated row. The row is named by
 * its key, id and business: distributed by business, the write goes to its node only.
 */
export async function moveRow<Row extends { id: string; business_id: string; status: string }, E extends string>(
  trx: Knex,
  table: string,
  machine: StateMachine<Row['status'], E>,
  row: Row,
  event: E,
  changes: Partial<Row> = {},
): Promise<Row> {
  const status = machine.next(row.status, event);
  const [updated] = await trx(table).where({ id: row.id, business_id: row.business_id }).update({ ...changes, status, updated_at: trx.fn.now(3) }).returning('*');
  return updated;
}

/**
 * Lazy expiry: when row `id` of the business in `table` is in one of `live`
 * states and its `expires_at` is at or before `now`, runs `expire` on it (locked),
 * in a transaction of its own so that the expiry stays recorded whatever the
 * caller then answers.
 */
export async function expireRowIfDue<Row>(
  db: Knex,
  table: string,
  where: { id: string; business_id: string; live: readonly string[]; now: Date },
  expire: (trx: Knex, row: Row) => Promise<unknown>,
): Promise<void> {
  await db.transaction(async (trx) => {
    const row: Row | undefined = await trx(table)
      .where({ id: where.id, business_id: where.business_id })
      .whereIn('status', where.live)
      .andWhere('expires_at', '<=', where.now)
      .forNoKeyUpdate()
      .first();
    if (row) await expire(trx, row);
  });
}
