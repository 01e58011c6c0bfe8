/**
 * Cursor pagination, newest first (openapi/API_CONVENTIONS.md, "Lists").
 * A cursor is base64url of `<created_at ISO>|<id>` of the last item returned;
 * the next page holds items strictly before it in (created_at DESC, id DESC).
 */
import type { Knex } from 'knex';
import { AppError } from './errors.js';

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * The position a cursor issued by `paginate` names: the last item's `created_at` and `id`.
 * Throws 400 INVALID_CURSOR for anything else. For a query that reads several index ranges
 * and merges them (each range then starts past the cursor itself).
 */
export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [iso = '', id = ''] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso);
  // Only what `paginate` issues: a 4-digit-year ISO instant that round-trips, and a UUID.
  const issued = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(iso) && !Number.isNaN(createdAt.getTime()) && createdAt.toISOString() === iso;
  if (!issued || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) {
    throw new AppError('INVALID_CURSOR', 'The cursor is not one this service issued.', {
      errors: [{ pointer: '/query/cursor', detail: 'is not a valid cursor' }],
    });
  }
  return { createdAt, id };
}

/**
 * Runs `query` (rows with `created_at` and `id` under `alias`) one page at a
 * time and maps the rows with `toItem`. Throws 400 INVALID_CURSOR.
 */
export async function paginate<Row extends { created_at: Date; id: string }, Item>(
  query: Knex.QueryBuilder,
  page: PageQuery,
  toItem: (rows: Row[]) => Promise<Item[]> | Item[],
  alias?: string,
): Promise<Page<Item>> {
  const limit = page.limit ?? 20;
  const col = (name: string) => (alias ? `${alias}.${name}` : name);
  if (page.cursor) {
    const { createdAt, id } = decodeCursor(page.cursor);
    query.whereRaw(`(${col('created_at')}, ${col('id')}) < (?, ?)`, [createdAt, id]);
  }
  const rows = (await query.orderBy([{ column: col('created_at'), order: 'desc' }, { column: col('id'), order: 'desc' }]).limit(limit + 1)) as Row[];
  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  const last = pageRows[pageRows.length - 1];
  return {
    data: await toItem(pageRows),
    has_more: hasMore,
    next_cursor: hasMore && last ? Buffer.from(`${last.created_at.toISOString()}|${last.id}`).toString('base64url') : null,
  };
}
