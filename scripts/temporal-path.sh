#!/usr/bin/env bash
# Prints the path of the real `temporal` binary. Under pyenv, `temporal` on PATH is a shell shim,
# which the Temporal test environment cannot start as a server executable.
set -euo pipefail
if command -v pyenv >/dev/null 2>&1; then
  real=$(pyenv which temporal 2>/dev/null || true)
  [ -n "$real" ] && [ -x "$real" ] && { echo "$real"; exit 0; }
fi
dir=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
[ -x "$dir/temporal" ] && { echo "$dir/temporal"; exit 0; }
command -v temporal
