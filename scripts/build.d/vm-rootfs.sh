#!/usr/bin/env bash
# Builds the VM-shaped local nodes' image and their local apt repository
# (infra/vmlocal/rootfs.ts) into .cache/vmlocal/<stamp>/: debootstrap and Debian's archive, about
# 35 s and 490 MB once; skipped while the current stamp's build is there. The repository's
# `cassandra` package is made from the jars of cassandra.sh, which setup.sh runs before this.
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsx scripts/build-vm-rootfs.ts
