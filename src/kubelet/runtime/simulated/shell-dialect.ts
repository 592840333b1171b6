/**
 * Which shell an exec runs and how it words what it prints itself: busybox's
 * ash in busybox and alpine images; in Debian's (nginx, debian, httpd ...)
 * `sh` is dash and `bash` is bash. Each names itself by its $0 as typed
 * (`/bin/sh: ...`), as the real ones do:
 *
 *  - ash:  prompt `/ # ` (`/ $ ` for a non-root user); `sh: NAME: not found`;
 *          `sh: cd: can't cd to DIR: REASON` (`sh: cd: line N: ...` in -c,
 *          N counted from 0 as busybox 1.35 does), exit 2
 *  - dash: prompt `# ` (`$ `); `sh: N: NAME: not found`, N the line read;
 *          `sh: N: cd: can't cd to DIR`, exit 2
 *  - bash: prompt `root@HOST:/# ` (`I have no name!@HOST:/$ ` for a uid
 *          /etc/passwd does not name); `bash: NAME: command not found`
 *          typed at the prompt, `bash: line N: NAME: command not found` in -c;
 *          `bash: cd: DIR: REASON` (`bash: line N: cd: ...` in -c), exit 1
 * The prompt shows the working directory as ash's and Debian's bash's
 * default PS1 (`\w`) does: under $HOME as `~` (`~ # `, `root@HOST:~# `).
 */
import { lsFlavour } from './ls-columns.js';

export type ShellDialect = 'ash' | 'dash' | 'bash';

export function shellDialect(argv0: string, image: string | undefined): ShellDialect {
  const base = argv0.slice(argv0.lastIndexOf('/') + 1);
  if (base === 'bash') return 'bash';
  if (base === 'dash') return 'dash';
  return lsFlavour(image) === 'busybox' ? 'ash' : 'dash';
}

export function shellPrompt(d: ShellDialect, o: { root: boolean; hostname: string; cwd: string; home?: string }): string {
  const sign = o.root ? '#' : '$';
  // `\w`: $HOME and what is under it start with `~`; a HOME of `/` is not abbreviated.
  const home = o.home && o.home.length > 1 ? o.home.replace(/\/$/, '') : undefined;
  const cwd = home && (o.cwd === home || o.cwd.startsWith(`${home}/`)) ? `~${o.cwd.slice(home.length)}` : o.cwd;
  if (d === 'bash') return `${o.root ? 'root' : 'I have no name!'}@${o.hostname}:${cwd}${sign} `;
  return d === 'dash' ? `${sign} ` : `${cwd} ${sign} `;
}

/**
 * What `cd` says when it cannot go to DIR, and its status. REASON is
 * strerror's (`No such file or directory`, `Not a directory`); bash's own
 * refusals (`too many arguments`, `OLDPWD not set`) come with an empty DIR.
 */
export function cdFailed(shell: { name: ShellDialect; argv0: string; interactive: boolean; line(): number }, dir: string, reason: string): { text: string; code: number } {
  const { name, argv0 } = shell;
  if (name === 'bash') return { text: `${argv0}: ${shell.interactive ? '' : `line ${shell.line()}: `}cd: ${dir ? `${dir}: ` : ''}${reason}\n`, code: 1 };
  if (name === 'dash') return { text: `${argv0}: ${shell.line()}: cd: can't cd to ${dir}\n`, code: 2 };
  return { text: `${argv0}: cd: ${shell.interactive ? '' : `line ${shell.line() - 1}: `}can't cd to ${dir}: ${reason}\n`, code: 2 };
}

/** What the shell says of a command it does not find; `line` is the script's line (-c) or the line typed, undefined for bash at its prompt. */
export function commandNotFound(d: ShellDialect, argv0: string, name: string, line: number | undefined): string {
  if (d === 'bash') return line === undefined ? `${argv0}: ${name}: command not found\n` : `${argv0}: line ${line}: ${name}: command not found\n`;
  if (d === 'dash') return `${argv0}: ${line ?? 1}: ${name}: not found\n`;
  return `${argv0}: ${name}: not found\n`;
}

/**
 * What the shell says of a `$((EXPR))` it cannot evaluate (a syntax error,
 * division by zero), and the status the script ends with. bash names the
 * rest of the expression from where it stopped as its error token; here that
 * is the divisor, or the last token, as in the common cases.
 */
export function arithmeticFailed(shell: { name: ShellDialect; argv0: string; interactive: boolean; line(): number }, expr: string, reason: string): { text: string; code: number } {
  const { name, argv0 } = shell;
  const zero = reason === 'division by zero';
  if (name === 'bash') {
    const token = zero ? expr.slice(Math.max(expr.lastIndexOf('/'), expr.lastIndexOf('%')) + 1).trim() : expr.trim().slice(-1);
    // `line N: ` in a -c script (bash leaves it out when the script is one simple command; not told apart here).
    const where = shell.interactive ? '' : `line ${shell.line()}: `;
    return { text: `${argv0}: ${where}${expr}: ${zero ? 'division by 0' : 'syntax error: operand expected'} (error token is "${token}")\n`, code: 1 };
  }
  if (name === 'dash') return { text: `${argv0}: ${shell.line()}: arithmetic expression: ${zero ? 'division by zero' : 'expecting primary'}: "${expr}"\n`, code: 2 };
  return { text: `${argv0}: ${zero ? 'divide by zero' : 'arithmetic syntax error'}\n`, code: 2 };
}
