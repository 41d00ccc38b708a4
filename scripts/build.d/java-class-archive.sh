#!/usr/bin/env bash
# Makes the Cassandra server's class-data archive from the jars of cassandra.sh
# (services/databases/cassandra/class-archive.ts), by starting a server in a network namespace of
# its own: root only. Idempotent: made again when the jars, the JDK or the server's command line changed.
set -euo pipefail
cd "$(dirname "$0")/../.."

DEST=.cache/cassandra
STAMP="$DEST/pom.sha256"
ARCHIVE="$DEST/server.jsa"
ARCHIVE_KEY="$DEST/server.jsa.key"
key=$( (cat "$STAMP"; java -version 2>&1; cat services/databases/cassandra/config.ts services/databases/cassandra/class-archive.ts) | sha256sum | cut -d' ' -f1)
if [ -f "$ARCHIVE" ] && [ -f "$ARCHIVE_KEY" ] && [ "$(cat "$ARCHIVE_KEY")" = "$key" ]; then
  echo "cassandra class archive up to date"
elif [ "$(id -u)" -ne 0 ]; then
  echo "cassandra class archive skipped: making it needs root (servers start without it, ~2 CPU s slower each)"
else
  rm -f "$ARCHIVE" "$ARCHIVE_KEY"
  npx tsx scripts/train-cassandra-archive.ts
  if [ -f "$ARCHIVE" ]; then echo "$key" >"$ARCHIVE_KEY"; fi
fi
