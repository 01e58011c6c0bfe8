/**
 * Writes docs/schema.md: the live schema of a database migrated by this repository
 * (read by src/db/schemaDescription.ts, rendered by src/db/schemaMarkdown.ts), so that a
 * reader finds every table, index, constraint, trigger and function in one place without
 * running anything.
 *
 *   npm run db:schema              writes docs/schema.md
 *   npm run db:schema -- --check   exits 1 when docs/schema.md differs from the live schema
 *
 * The database: DATABASE_URL when set (migrated first, as the service migrates it on
 * start), otherwise an embedded PostgreSQL on a temporary directory, deleted afterwards.
 * test/platform/database/schemaDescription.test.ts fails when docs/schema.md is out of date.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../src/db/embedded.js';
import { connectAndMigrate } from '../src/db/knex.js';
import { describeSchema } from '../src/db/schemaDescription.js';
import { schemaDrift, schemaMarkdown, SCHEMA_DOCUMENT } from '../src/db/schemaMarkdown.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const check = process.argv.includes('--check');

let embedded: EmbeddedDatabase | undefined;
let dataDir: string | undefined;
try {
  let url = process.env.DATABASE_URL;
  if (!url) {
    dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-schema-'));
    chmodSync(dataDir, 0o755); // PostgreSQL runs as the `postgres` user when we are root
    embedded = await startEmbeddedPostgres(dataDir, { persistent: false, quiet: true });
    url = embedded.url;
  }
  const db = await connectAndMigrate(url, { poolSize: 2 });
  let markdown: string;
  try {
    markdown = schemaMarkdown(await describeSchema(db));
  } finally {
    await db.destroy();
  }
  const file = path.join(ROOT, SCHEMA_DOCUMENT);
  if (check) {
    const drift = schemaDrift(readFileSync(file, 'utf8'), markdown);
    if (drift) {
      console.error(`${SCHEMA_DOCUMENT} is out of date (run npm run db:schema):\n${drift}`);
      process.exitCode = 1;
    } else console.log(`${SCHEMA_DOCUMENT} is up to date`);
  } else {
    writeFileSync(file, markdown);
    console.log(`wrote ${SCHEMA_DOCUMENT}`);
  }
} finally {
  await embedded?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
