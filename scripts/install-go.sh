#!/usr/bin/env bash
# Makes sure a Go toolchain at least as new as the emulator's go.mod asks for is on PATH. Where
# there is none (or an older one), fetches the official toolchain from the Go module proxy (the
# same zip `GOTOOLCHAIN` downloads) into /usr/local/lib/fragbench-go and links `go` into
# /usr/local/bin. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLCHAIN=1.26.8   # a release of the go.mod's version line, known to build and test the emulator
want=$(awk '/^go /{print $2}' emulator/go.mod)
DEST=/usr/local/lib/fragbench-go

version_at_least() { # $1 >= $2, both like 1.26 or 1.26.8
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]
}

have=""
for go in "$(command -v go || true)" /usr/local/go/bin/go "$DEST/bin/go"; do
  [ -n "$go" ] && [ -x "$go" ] || continue
  v=$("$go" env GOVERSION 2>/dev/null | sed 's/^go//') || continue
  if version_at_least "$v" "$want"; then have=$go; break; fi
done
if [ -n "$have" ]; then
  echo "go: $("$have" version) (emulator needs $want)"
  [ "$(command -v go || true)" = "$have" ] || ln -sf "$have" /usr/local/bin/go
  exit 0
fi

case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "go: no toolchain for $(uname -m); install Go $want or newer (https://go.dev/dl/)" >&2; exit 1 ;;
esac
proxy=${GOPROXY:-https://proxy.golang.org}; proxy=${proxy%%,*}
module="v0.0.1-go$TOOLCHAIN.linux-$arch"
echo "go: fetching Go $TOOLCHAIN from $proxy (golang.org/toolchain@$module)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
curl -fsSL --retry 3 -o "$tmp/go.zip" "$proxy/golang.org/toolchain/@v/$module.zip"
unzip -q "$tmp/go.zip" -d "$tmp"
rm -rf "$DEST"
mv "$tmp/golang.org/toolchain@$module" "$DEST"
ln -sf "$DEST/bin/go" /usr/local/bin/go
echo "go: $("$DEST/bin/go" version)"
