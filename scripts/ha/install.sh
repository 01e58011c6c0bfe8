#!/usr/bin/env bash
# Installs what `npm run ha` (scripts/ha.ts) runs: Patroni (the PostgreSQL HA manager), etcd
# (the store that holds Patroni's leader lock), HAProxy (routes the read-write port to the
# leader) and pgBackRest (base backups and the WAL archive), all from Debian 12, beside
# Debian's PostgreSQL 15.
# Idempotent: does nothing when all are installed. Needs root (apt-get).
#
#   bash scripts/ha/install.sh            # npm run ha -- up runs it when one is missing
#
# The packages' own services (etcd, haproxy, patroni) are not enabled or started here: the
# cluster's processes are started by scripts/ha.ts on loopback ports of their own.
set -euo pipefail
PG=15
SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)

installed() {
  [ -x /usr/lib/postgresql/$PG/bin/postgres ] && command -v patroni >/dev/null 2>&1 &&
    { [ -x /usr/bin/etcd ] || command -v etcd >/dev/null 2>&1; } &&
    { [ -x /usr/sbin/haproxy ] || command -v haproxy >/dev/null 2>&1; } &&
    command -v pgbackrest >/dev/null 2>&1
}
if installed; then echo "patroni, etcd, haproxy and pgbackrest already installed"; exit 0; fi

echo "installing patroni, etcd-server, haproxy, pgbackrest (Debian packages)"
$SUDO apt-get update -qq
# policy-rc.d 101: the packages' post-install scripts do not start their services (in a
# container without an init they could not; on a machine they would take the default ports).
POLICY=/usr/sbin/policy-rc.d
CREATED_POLICY=""
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod +x "$POLICY"
  CREATED_POLICY=1
fi
trap '[ -n "$CREATED_POLICY" ] && $SUDO rm -f "$POLICY"' EXIT
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
  postgresql-$PG patroni etcd-server haproxy pgbackrest python3-etcd >/dev/null
installed || { echo "the install did not take"; exit 1; }
echo "installed: $(patroni --version 2>&1 | head -1), $(etcd --version 2>&1 | head -1), $(haproxy -v 2>&1 | head -1), $(pgbackrest version)"
