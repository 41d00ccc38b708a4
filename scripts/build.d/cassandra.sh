#!/usr/bin/env bash
# Puts Cassandra's jars (cassandra-all from Maven Central and its run-time dependencies) in
# .cache/cassandra/lib. The local fleet runs Cassandra and nodetool from there. Then makes the
# server's class-data archive from those jars (services/databases/cassandra/class-archive.ts).
# Idempotent: the jars are copied while the pom changed since the last successful copy; the
# archive is made again when the jars, the JDK or the server's command line changed.
set -euo pipefail
cd "$(dirname "$0")/../.."

POM=services/databases/cassandra/pom.xml
DEST=.cache/cassandra
STAMP="$DEST/pom.sha256"

want=$(sha256sum "$POM" | cut -d' ' -f1)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && ls "$DEST"/lib/cassandra-all-*.jar >/dev/null 2>&1; then
  echo "cassandra jars up to date"
else
  rm -rf "$DEST/lib.new"
  mkdir -p "$DEST"
  mvn -q -B -f "$POM" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$PWD/$DEST/lib.new"
  rm -rf "$DEST/lib"
  mv "$DEST/lib.new" "$DEST/lib"
  echo "$want" >"$STAMP"
  echo "cassandra jars in $DEST/lib ($(ls "$DEST/lib" | wc -l) files)"
fi

# The archive is made by starting a server in a network namespace of its own: root only.
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
