/** Labels: named groups of a business's wallets (name unique per business). */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/types/closed-loop.js';
import { AppError } from '../kernel/errors.js';
import { paginate, type Page, type PageQuery } from '../kernel/pagination.js';

type Schemas = components['schemas'];
export type LabelView = Schemas['Label'];

interface LabelRow {
  id: string;
  business_id: string;
  name: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

function toView(row: LabelRow): LabelView {
  return { ...row, created_at: row.created_at.toISOString(), updated_at: row.updated_at.toISOString() };
}

/** Creates a label; throws LABEL_NAME_TAKEN when the business already has one of that name. */
export async function createLabel(db: Knex, businessId: string, req: Schemas['LabelCreateRequest']): Promise<LabelView> {
  const [row] = await db('labels')
    .insert({ id: randomUUID(), business_id: businessId, name: req.name, description: req.description ?? null })
    .onConflict(['business_id', 'name'])
    .ignore()
    .returning('*');
  if (!row) throw new AppError('LABEL_NAME_TAKEN', `A label named "${req.name}" already exists.`);
  return toView(row);
}

/** The business's label `id`; throws LABEL_NOT_FOUND. */
export async function getLabel(db: Knex, businessId: string, id: string): Promise<LabelView> {
  const row = await db('labels').where({ id, business_id: businessId }).first();
  if (!row) throw new AppError('LABEL_NOT_FOUND', `No label ${id} for this business.`);
  return toView(row);
}

/** A page of the business's labels, newest first. */
export async function listLabels(db: Knex, businessId: string, page: PageQuery): Promise<Page<LabelView>> {
  return paginate<LabelRow, LabelView>(db('labels').where({ business_id: businessId }), page, (rows) => rows.map(toView));
}
