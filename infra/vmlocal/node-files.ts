/**
 * Files baked into the VM-shaped nodes' image: what a cloud image and cloud-init give a VM, and
 * the stand-ins for systemd, which a node without a booted init does not have.
 */
import { VENDOR_STAND_IN_FILE } from '../../services/databases/vendor-apt';
import { REPOSITORY_URL } from './addresses';

/** The cloud user the stacks log in as (settings.schema.json's `fragbench:sshUser` default). */
export const SSH_USER = 'ubuntu';

/** PID 1 of a node, started by the boot script in node.ts once the node's mounts are in place. */
export const NODE_INIT = '/usr/local/sbin/fb-init';

const INIT = `#!/bin/sh
# PID 1 of a VM-shaped fragbench node (no systemd): host keys on first start, then sshd.
ssh-keygen -A >/dev/null
mkdir -p /run/sshd
/usr/sbin/sshd -D -e >>/var/log/sshd.log 2>&1 &
trap 'exit 0' TERM INT
# As PID 1 it inherits every orphan (detached databases among them): wait reaps them.
while :; do wait; sleep 1; done
`;

/**
 * What the cloud scripts ask of systemctl, done the way their units do it: \`wg-quick@X\` brings
 * the interface up with the userspace WireGuard (the unit would use the kernel's), \`tinc@N\`
 * starts tincd for network N, and other units go to their /etc/init.d script. Enabling for the
 * next boot means nothing on a node that never boots again.
 */
const SYSTEMCTL = `#!/bin/sh
set -eu
verb=\${1:?systemctl: no verb}; shift
# Units are read when started: nothing to reload.
[ "$verb" = daemon-reload ] && exit 0
now=no
if [ "\${1:-}" = --now ]; then now=yes; shift; fi
[ "\${1:-}" = --quiet ] && shift
unit=\${1:?systemctl: no unit}
unit=\${unit%.service}
start() {
  case "$unit" in
    wg-quick@*) WG_QUICK_USERSPACE_IMPLEMENTATION=boringtun-cli WG_SUDO=true wg-quick up "\${unit#wg-quick@}" ;;
    # As systemd would: the unit's drop-in ExecStart when there is one (%i the instance), in the
    # background since it runs tincd in the foreground (-D).
    tinc@*) cmd=$(cat /etc/systemd/system/"$unit".service.d/*.conf 2>/dev/null | sed -n 's/^ExecStart=\\(..*\\)$/\\1/p' | tail -n 1 | sed "s/%i/\${unit#tinc@}/g")
      if [ -n "$cmd" ]; then setsid $cmd </dev/null >/dev/null 2>&1 & else tincd -n "\${unit#tinc@}"; fi ;;
    *) if [ -x "/etc/init.d/$unit" ]; then "/etc/init.d/$unit" start; else echo "systemctl: unit $unit not found" >&2; exit 5; fi ;;
  esac
}
stop() {
  case "$unit" in
    wg-quick@*) if ip link show "\${unit#wg-quick@}" >/dev/null 2>&1; then wg-quick down "\${unit#wg-quick@}"; fi ;;
    tinc@*) tincd -n "\${unit#tinc@}" -k 2>/dev/null || true ;;
    *) if [ -x "/etc/init.d/$unit" ]; then "/etc/init.d/$unit" stop; fi ;;
  esac
}
active() {
  case "$unit" in
    wg-quick@*) ip link show "\${unit#wg-quick@}" >/dev/null 2>&1 ;;
    tinc@*) [ -f "/run/tinc.\${unit#tinc@}.pid" ] && kill -0 "$(cat "/run/tinc.\${unit#tinc@}.pid")" 2>/dev/null ;;
    *) [ -x "/etc/init.d/$unit" ] && "/etc/init.d/$unit" status >/dev/null 2>&1 ;;
  esac
}
case "$verb" in
  enable) if [ $now = yes ]; then start; fi ;;
  disable) if [ $now = yes ]; then stop; fi ;;
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  is-active) active ;;
  *) echo "systemctl on a fragbench VM-shaped node: '$verb' is not supported" >&2; exit 1 ;;
esac
`;

export interface ImageFile {
  content: string;
  mode: number;
}

export const NODE_FILES: Record<string, ImageFile> = {
  [NODE_INIT]: { content: INIT, mode: 0o755 },
  '/usr/local/bin/systemctl': { content: SYSTEMCTL, mode: 0o755 },
  // The Include at the top of Debian's sshd_config makes these win. No PAM: nothing to log in to.
  '/etc/ssh/sshd_config.d/fragbench.conf': {
    content: ['UsePAM no', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UseDNS no', 'AllowTcpForwarding yes', ''].join('\n'),
    mode: 0o644,
  },
  '/etc/sudoers.d/90-cloud-init-users': { content: `${SSH_USER} ALL=(ALL) NOPASSWD:ALL\n`, mode: 0o440 },
  // The local repository is a flat one without a signature: trusted by its source line. It holds
  // Debian's own packages, downloaded at setup from Debian's signed archive.
  '/etc/apt/sources.list': { content: `deb [trusted=yes] ${REPOSITORY_URL} ./\n`, mode: 0o644 },
  [VENDOR_STAND_IN_FILE]: {
    content: `the local repository ${REPOSITORY_URL} (Debian bookworm's packages of the vendors' package names)\n`,
    mode: 0o644,
  },
  // Nodes resolve no names: the repository is named by address, and nothing else is reachable.
  '/etc/resolv.conf': { content: '# fragbench VM-shaped node: no DNS\n', mode: 0o644 },
};
