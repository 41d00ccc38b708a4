/**
 * Packages the image build makes itself (stand-ins for what Debian's archive lacks): a control
 * file and the files to ship, built by dpkg-deb into a .deb that apt installs like any other.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runHost } from '../../platform/command';

export interface LocalDeb {
  name: string;
  version: string;
  /** `all` unless the files are built for one architecture. */
  architecture?: string;
  depends?: string;
  provides?: string;
  /** One line; the control file's Description. */
  description: string;
  /** Installed path (absolute) -> file on this host to copy there. */
  files?: Record<string, string>;
}

export function debFileName(deb: LocalDeb): string {
  return `${deb.name}_${deb.version}_${deb.architecture ?? 'all'}.deb`;
}

/** Builds `deb` into `outDir` (its tree staged in `workDir`, removed after); returns the .deb's path. */
export async function buildDeb(deb: LocalDeb, workDir: string, outDir: string): Promise<string> {
  const tree = join(workDir, `${deb.name}.tree`);
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(join(tree, 'DEBIAN'), { recursive: true });
  const fields: [string, string | undefined][] = [
    ['Package', deb.name],
    ['Version', deb.version],
    ['Architecture', deb.architecture ?? 'all'],
    ['Maintainer', 'fragbench'],
    ['Depends', deb.depends],
    ['Provides', deb.provides],
    ['Description', deb.description],
  ];
  writeFileSync(
    join(tree, 'DEBIAN/control'),
    fields
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}: ${v}\n`)
      .join(''),
  );
  for (const [target, source] of Object.entries(deb.files ?? {})) {
    mkdirSync(dirname(join(tree, target)), { recursive: true });
    copyFileSync(source, join(tree, target));
  }
  const out = join(outDir, debFileName(deb));
  // Uncompressed: the local repository is read over the fleet's own LAN, and jars are compressed already.
  await runHost(['dpkg-deb', '--build', '--root-owner-group', '-Znone', tree, out], { timeoutMs: 10 * 60_000 });
  rmSync(tree, { recursive: true });
  return out;
}
