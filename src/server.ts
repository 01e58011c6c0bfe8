/**
 * Starts the whole service: database (DATABASE_URL, or an embedded PostgreSQL
 * under DATA_DIR), migrations, sandbox seed, and the HTTP server.
 * Used by `npm start` (src/main.ts) and by the tests.
 *
 * The embedded PostgreSQL is started first: it comes up in its own process
 * while this one loads the HTTP stack and the database client (imported here
 * only then, for that reason).
 */
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import type { Config } from './config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { PRECOMPILED_API_DIR, RUNNING_COMPILED } from './paths.js';

export interface RunningService {
  /** Base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  db: Knex;
  /** Stops the HTTP server, the pool and the embedded PostgreSQL (if any). */
  close(): Promise<void>;
}

/**
 * Starts the service per `config`. `persistent: false` makes an embedded
 * database that is deleted on close (tests). `apiDir`: the precompiled API
 * documents (default: dist/api/ when running compiled, none from sources).
 */
export async function startService(
  config: Config,
  opts: { persistent?: boolean; quiet?: boolean; host?: string; database?: string; apiDir?: string } = {},
): Promise<RunningService> {
  const given = opts.database ?? config.databaseUrl;
  const starting = given ? undefined : startEmbeddedPostgres(config.dataDir, { persistent: opts.persistent ?? true, quiet: opts.quiet });
  starting?.catch(() => undefined); // awaited below: an early failure must not go unhandled meanwhile
  const [{ connectAndMigrate }, { seedSandbox }, { jwtKey }, { createApp }] = await Promise.all([
    import('./db/knex.js'),
    import('./domain/sandbox.js'),
    import('./domain/settings.js'),
    import('./http/app.js'),
  ]).catch(async (err) => {
    await starting?.then((e) => e.stop(), () => undefined);
    throw err;
  });
  const embedded: EmbeddedDatabase | undefined = await starting;
  const databaseUrl = given ?? embedded!.url;
  const db = await connectAndMigrate(databaseUrl, config.dbPoolSize);
  if (config.sandbox) await seedSandbox(db);
  const apiDir = opts.apiDir ?? (RUNNING_COMPILED ? PRECOMPILED_API_DIR : undefined);
  const app = await createApp({ db, config, jwtKey: await jwtKey(db, config.jwtSecret) }, { apiDir });
  const host = opts.host ?? '127.0.0.1';
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(config.port, host, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    db,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await db.destroy();
      if (embedded) await embedded.stop();
    },
  };
}
