/**
 * A POSIX shell script that writes files (content, mode, owner) and then runs commands. It goes
 * to `sudo sh -s` on standard input, so file contents (private keys among them) never appear in
 * a command line, a process list or a Pulumi diff of the command.
 */
import { shellQuote } from '../../../services/exec/transports';

export interface FileSpec {
  content: string;
  /** Octal, e.g. '600'. */
  mode: string;
  /** `user` or `user:group`; root when absent. */
  owner?: string;
}

const EOF = 'FRAGBENCH_EOF';

export function writeFilesScript(files: Record<string, FileSpec>, then: string[] = []): string {
  const out = ['set -eu', 'umask 077'];
  const dirs = [...new Set(Object.keys(files).map((p) => p.slice(0, p.lastIndexOf('/')) || '/'))];
  if (dirs.length) out.push(`mkdir -p ${dirs.map(shellQuote).join(' ')}`);
  for (const [path, file] of Object.entries(files)) {
    if (!path.startsWith('/')) throw new Error(`file path "${path}" must be absolute`);
    if (!/^[0-7]{3,4}$/.test(file.mode)) throw new Error(`file mode "${file.mode}" of ${path} is not octal`);
    const content = file.content.endsWith('\n') ? file.content : `${file.content}\n`;
    if (content.split('\n').includes(EOF)) throw new Error(`${path} contains the line ${EOF}, which ends the here-document`);
    out.push(`cat > ${shellQuote(path)} <<'${EOF}'`, content + EOF, `chmod ${file.mode} ${shellQuote(path)}`);
    if (file.owner) out.push(`chown ${shellQuote(file.owner)} ${shellQuote(path)}`);
  }
  out.push(...then);
  return `${out.join('\n')}\n`;
}

/** How a root script reaches a VM: on standard input of this command, run by the cloud user. */
export const ROOT_SCRIPT_COMMAND = 'sudo sh -s';

/** How a root command (a resource's delete step) reaches a VM: as the command line of the cloud user's shell. */
export function rootCommandLine(command: string): string {
  return `sudo sh -c ${shellQuote(command)}`;
}

/** The first boot may still be installing packages when the VM answers SSH. */
const WAIT_FOR_BOOT = 'cloud-init status --wait >/dev/null 2>&1 || true';

/** ROOT_SCRIPT_COMMAND's standard input for a script: it waits for cloud-init first. */
export function rootScriptInput(script: string): string {
  return `${WAIT_FOR_BOOT}\n${script}`;
}
