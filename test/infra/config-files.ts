/** Reading back what the program puts on VMs: the files of a write-files script, WireGuard configs. */

/** Files written by a script from writeFilesScript: path -> content. */
export function filesOfScript(script: string): Record<string, string> {
  const files: Record<string, string> = {};
  const heredoc = /^cat > '?([^'\n]+?)'? <<'FRAGBENCH_EOF'\n([\s\S]*?)^FRAGBENCH_EOF$/gm;
  for (const m of script.matchAll(heredoc)) files[m[1]] = m[2];
  return files;
}

export interface ParsedWireguard {
  iface: Record<string, string>;
  peers: Record<string, string>[];
}

export function parseWireguard(text: string): ParsedWireguard {
  const sections: { name: string; values: Record<string, string> }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      sections.push({ name: section[1], values: {} });
      continue;
    }
    const [key, ...rest] = line.split('=');
    sections[sections.length - 1].values[key.trim()] = rest.join('=').trim();
  }
  const iface = sections.filter((s) => s.name === 'Interface');
  if (iface.length !== 1) throw new Error(`expected one [Interface], found ${iface.length}`);
  return { iface: iface[0].values, peers: sections.filter((s) => s.name === 'Peer').map((s) => s.values) };
}

export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .sort();
}

/**
 * The routes a script leaves on a VM, as `prefix dev interface`: what `wg-quick` adds for every
 * peer's AllowedIPs of each config it brings up (unless `Table = off`), plus explicit `ip route`s.
 */
export function routesOfScript(script: string): string[] {
  const routes = new Set<string>();
  const files = filesOfScript(script);
  for (const m of script.matchAll(/wg-quick(?:@| up )(\w+)/g)) {
    const conf = files[`/etc/wireguard/${m[1]}.conf`];
    if (!conf) continue;
    const parsed = parseWireguard(conf);
    if (parsed.iface.Table === 'off') continue;
    for (const peer of parsed.peers) for (const prefix of splitList(peer.AllowedIPs)) routes.add(`${prefix} dev ${m[1]}`);
  }
  for (const m of script.matchAll(/^ip route (?:add|replace) (\S+) dev (\S+)/gm)) routes.add(`${m[1]} dev ${m[2]}`);
  return [...routes].sort();
}
