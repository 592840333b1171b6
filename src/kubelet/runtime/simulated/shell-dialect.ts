/**
 * Which shell an exec runs and how it words what it prints itself: busybox's
 * ash in busybox and alpine images; in Debian's (nginx, debian, httpd ...)
 * `sh` is dash and `bash` is bash. Each names itself by its $0 as typed
 * (`/bin/sh: ...`), as the real ones do:
 *
 *  - ash:  prompt `/ # ` (`/ $ ` for a non-root user); `sh: NAME: not found`
 *  - dash: prompt `# ` (`$ `); `sh: N: NAME: not found`, N the line read
 *  - bash: prompt `root@HOST:/# ` (`I have no name!@HOST:/$ ` for a uid
 *          /etc/passwd does not name); `bash: NAME: command not found`
 *          typed at the prompt, `bash: line N: NAME: command not found` in -c
 */
import { lsFlavour } from './ls-columns.js';

export type ShellDialect = 'ash' | 'dash' | 'bash';

export function shellDialect(argv0: string, image: string | undefined): ShellDialect {
  const base = argv0.slice(argv0.lastIndexOf('/') + 1);
  if (base === 'bash') return 'bash';
  if (base === 'dash') return 'dash';
  return lsFlavour(image) === 'busybox' ? 'ash' : 'dash';
}

export function shellPrompt(d: ShellDialect, o: { root: boolean; hostname: string; cwd: string }): string {
  const sign = o.root ? '#' : '$';
  if (d === 'bash') return `${o.root ? 'root' : 'I have no name!'}@${o.hostname}:${o.cwd}${sign} `;
  return d === 'dash' ? `${sign} ` : `${o.cwd} ${sign} `;
}

/** What the shell says of a command it does not find; `line` is the script's line (-c) or the line typed, undefined for bash at its prompt. */
export function commandNotFound(d: ShellDialect, argv0: string, name: string, line: number | undefined): string {
  if (d === 'bash') return line === undefined ? `${argv0}: ${name}: command not found\n` : `${argv0}: line ${line}: ${name}: command not found\n`;
  if (d === 'dash') return `${argv0}: ${line ?? 1}: ${name}: not found\n`;
  return `${argv0}: ${name}: not found\n`;
}
