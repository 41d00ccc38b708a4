#!/usr/bin/env bash
# Puts Cassandra's jars (cassandra-all from Maven Central and its run-time dependencies) in
# .cache/cassandra/lib. The local fleet runs Cassandra and nodetool from there.
# Idempotent: skipped while the pom is unchanged since the last successful copy.
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
