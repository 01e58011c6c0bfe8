/**
 * The embedded PostgreSQL cluster (src/db/embedded.ts) runs with the settings the
 * service gives it (`EMBEDDED_POSTGRES_SETTINGS`: buffers for a grown ledger, WAL for write bursts, DESIGN.md),
 * set on its command line at start, not left at PostgreSQL's defaults. Skipped when the
 * suite runs on DATABASE_URL: that PostgreSQL is its operator's. The ports `freePort`
 * gives (the embedded cluster's, the bench's servers') are free to bind and, on Linux,
 * below the range outgoing connections take their ports from. As root, a data folder inside a
 * private folder (`mktemp -d`, mode 700) works: its path is made traversable, not readable,
 * for the `postgres` user that runs the cluster.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { expect } from 'chai';
import { EMBEDDED_POSTGRES_SETTINGS, freePort, startEmbeddedPostgres } from '../../../src/db/embedded.js';
import { running } from '../../support/service.js';

describe('embedded PostgreSQL settings', () => {
  it('runs with every setting of EMBEDDED_POSTGRES_SETTINGS, from its command line', async function () {
    if (process.env.DATABASE_URL) this.skip();
    const names = Object.keys(EMBEDDED_POSTGRES_SETTINGS);
    expect(names).to.include.members(['shared_buffers', 'wal_buffers', 'min_wal_size']);
    const { rows } = await running().db.raw(
      `SELECT name, current_setting(name) AS value, source FROM pg_settings WHERE name = ANY(?) ORDER BY name`,
      [names],
    );
    expect(rows).to.have.length(names.length);
    for (const r of rows as { name: string; value: string; source: string }[]) {
      expect({ name: r.name, value: r.value, source: r.source }).to.deep.equal({ name: r.name, value: EMBEDDED_POSTGRES_SETTINGS[r.name], source: 'command line' });
    }
  });

  it('freePort gives ports free to bind, outside the range of outgoing connections', async function () {
    let range: number[];
    try {
      range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    } catch {
      this.skip(); // not Linux: the OS's own choice of port
    }
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      if (range![0] > 21_000) expect(port).to.be.within(20_000, range![0] - 1);
      await new Promise<void>((resolve, reject) => {
        const srv = createServer().once('error', reject);
        srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
      });
    }
  });

  it('as root, starts in a data folder inside a private mktemp -d folder, made traversable and no more', async function () {
    if (process.getuid?.() !== 0) this.skip();
    this.timeout(120_000);
    const parent = mkdtempSync(path.join(tmpdir(), 'wallet-private-'));
    try {
      expect(statSync(parent).mode & 0o777).to.equal(0o700);
      const db = await startEmbeddedPostgres(path.join(parent, 'data'), { persistent: false });
      try {
        expect(db.prepared).to.include(parent);
        expect(statSync(parent).mode & 0o777, 'others may enter, not list').to.equal(0o701);
      } finally {
        await db.stop();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
