/** The script that puts files on a VM, run for real in a scratch directory. */
import { execFileSync } from 'child_process';
import { mkdtempSync, readFileSync, statSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { writeFilesScript } from '../../infra/pulumi/render/files-script';

describe('writeFilesScript', () => {
  test('writes each file with its content and mode, then runs the commands', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fb-files-'));
    const key = join(dir, 'etc', 'wireguard', 'wg0.conf');
    const hook = join(dir, 'tinc', 'tinc-up');
    const tricky = "line with 'quotes' and $HOME and `backticks`\n\\ends with a backslash";
    const script = writeFilesScript(
      { [key]: { content: '[Interface]\nPrivateKey = abc=\n', mode: '600' }, [hook]: { content: tricky, mode: '755', owner: 'root' } },
      [`touch ${join(dir, 'done')}`],
    );
    execFileSync('sh', ['-s'], { input: script });
    expect(readFileSync(key, 'utf8')).toBe('[Interface]\nPrivateKey = abc=\n');
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(hook, 'utf8')).toBe(`${tricky}\n`);
    expect(statSync(hook).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'done')).isFile()).toBe(true);
  });

  test('refuses content that would end the here-document early, and relative paths', () => {
    expect(() => writeFilesScript({ '/tmp/x': { content: 'a\nFRAGBENCH_EOF\nb', mode: '600' } })).toThrow(/ends the here-document/);
    expect(() => writeFilesScript({ 'etc/x': { content: 'a', mode: '600' } })).toThrow(/must be absolute/);
  });
});
