#!/usr/bin/env bash
# Builds the YCSB client (ycsb/: YCSB 0.17 core plus fragbench's bindings) into
# ycsb/target/fragbench-ycsb.jar with its run-time dependencies in ycsb/target/lib/.
# Idempotent: skipped while no source or pom is newer than the jar.
set -euo pipefail
cd "$(dirname "$0")/../../ycsb"

JAR=target/fragbench-ycsb.jar
if [ -f "$JAR" ] && [ -d target/lib ] && [ -z "$(find pom.xml src -newer "$JAR" -print -quit)" ]; then
  echo "ycsb client up to date"
  exit 0
fi
mvn -q -B package -DskipTests
echo "ycsb client built: ycsb/$JAR ($(ls target/lib | wc -l) jars in ycsb/target/lib)"
