/**
 * The job outbox (src/jobs/outbox.ts): `job_outbox` (business_id, id, queue, jobs,
 * created_at), a tenant table where a business's transaction writes the jobs it enqueues,
 * handed to the job queue after the commit. Indexed by `created_at` for the sweep of rows
 * whose hand-off did not happen.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE job_outbox (
      business_id uuid NOT NULL,
      id uuid NOT NULL,
      queue text NOT NULL,
      jobs jsonb NOT NULL,
      created_at timestamp(3) with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      CONSTRAINT job_outbox_pkey PRIMARY KEY (business_id, id),
      CONSTRAINT job_outbox_business_id_foreign FOREIGN KEY (business_id) REFERENCES businesses(id),
      CONSTRAINT job_outbox_jobs_array CHECK (jsonb_typeof(jobs) = 'array')
    );
    CREATE INDEX job_outbox_created_at_index ON job_outbox (created_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE job_outbox');
}
