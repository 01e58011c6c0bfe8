/**
 * State machines as tables: each event lists the states it may leave and the
 * state it enters. A refused move throws the machine's typed error for the
 * current state (409, a code naming that state) and changes nothing.
 * The same tables are published in the API documents. `moveRow` and
 * `expireRowIfDue` persist the moves of a session table.
 */
import type { Knex } from 'knex';
import type { AppError } from './errors.js';

export interface Move<S extends string> {
  from: readonly S[];
  /** The state entered; absent when the event is recorded but the state stays. */
  to?: S;
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
      return moves[event].to ?? state;
    },
  };
}

/**
 * Applies `event` to a row of `table` locked by the caller (its state in
 * `status`): throws the machine's refusal when the move is not allowed, else
 * writes the new state with `changes` and returns the updated row.
 */
export async function moveRow<Row extends { id: string; status: string }, E extends string>(
  trx: Knex,
  table: string,
  machine: StateMachine<Row['status'], E>,
  row: Row,
  event: E,
  changes: Partial<Row> = {},
): Promise<Row> {
  const status = machine.next(row.status, event);
  const [updated] = await trx(table).where({ id: row.id }).update({ ...changes, status, updated_at: trx.fn.now(3) }).returning('*');
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
      .forUpdate()
      .first();
    if (row) await expire(trx, row);
  });
}
