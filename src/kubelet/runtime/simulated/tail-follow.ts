/**
 * `tail -f FILE` and `tail -F FILE` (busybox's, as the Sidecar Containers
 * page's logshipper runs `tail -F /opt/logs.txt` on a file its app
 * container appends to through a shared emptyDir):
 *
 *  1. The file's last lines (10, or `-n N`) first, when it is there.
 *  2. Then, once a second (busybox's poll), what was appended since.
 *  3. A file that is not there: `tail: can't open 'F': No such file or
 *     directory`; with -f that ends tail (`tail: no files`, exit 1); -F
 *     (follow the name, retry) waits, and when the file appears says `tail:
 *     F has appeared; following end of new file` and prints it from its
 *     start. A file that shrank is read again from its start.
 *  4. It runs until the container stops (or Ctrl-C on an exec's terminal).
 *
 * One file only; `tail -f /dev/null` is a sleep for ever.
 */
import type { ShellContext } from './shell.js';

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

export interface TailFollow {
  file: string;
  /** How many of the file's lines come first: the last `lines` of it, or, with `fromLine`, those from line `lines` on (`-n +N`). */
  lines: number;
  fromLine: boolean;
  retry: boolean;
}

/** busybox polls a followed file once a second. */
const pollMs = 1000;

/**
 * The follow options of `tail ARGS` (-f, -F, -n N, bundled and attached as
 * getopt takes them: -fn N, -n+1 -F, -Fn2), or undefined when it is another
 * form. `-n +N` starts at line N, as the Logging Architecture page's
 * sidecars run `tail -n+1 -F /var/log/1.log`.
 */
export function parseTailFollow(args: (string | undefined)[]): TailFollow | undefined {
  const o: Omit<TailFollow, 'file'> & { follow: boolean } = { follow: false, retry: false, lines: 10, fromLine: false };
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) return undefined;
    if (!/^-./.test(a)) { files.push(a); continue; }
    for (let j = 1; j < a.length; j++) {
      const f = a[j];
      if (f === 'f') o.follow = true;
      else if (f === 'F') { o.follow = true; o.retry = true; } else if (f === 'n') {
        const n = j + 1 < a.length ? a.slice(j + 1) : args[++i];
        const m = n === undefined ? null : /^([+-]?)(\d+)$/.exec(n);
        if (!m) return undefined;
        o.lines = Number(m[2]);
        o.fromLine = m[1] === '+';
        break;
      } else return undefined;
    }
  }
  const { follow, ...rest } = o;
  return follow && files.length === 1 ? { file: files[0]!, ...rest } : undefined;
}

const lastLines = (text: string, n: number) => {
  if (n === 0) return '';
  const parts = text.split(/(?<=\n)/);
  return parts.slice(-n).join('');
};

/** The lines tail prints first: the last N, or from line N on (`+N`; +0 is +1, as busybox). */
const firstLines = (text: string, o: TailFollow) => (o.fromLine ? text.split(/(?<=\n)/).slice(Math.max(0, o.lines - 1)).join('') : lastLines(text, o.lines));

/** Runs `tail -f` as above: the exit code when it ends by itself, else it ends when ctx.sleep says the container stopped. */
export async function tailFollow(o: TailFollow, ctx: ShellContext, out: Out): Promise<number | 'stopped'> {
  const read = () => ctx.readFile(o.file);
  let text = read();
  if (text === undefined) {
    out('stderr', `tail: can't open '${o.file}': No such file or directory\n`);
    if (!o.retry) { out('stderr', 'tail: no files\n'); return 1; }
  } else out('stdout', firstLines(text, o));
  let offset = text?.length ?? 0;
  for (;;) {
    if (!(await ctx.sleep(pollMs))) return 'stopped';
    const now = read();
    if (now === undefined) { text = undefined; continue; }
    if (text === undefined) {
      out('stderr', `tail: ${o.file} has appeared; following end of new file\n`);
      offset = 0;
    } else if (now.length < offset) offset = 0;
    if (now.length > offset) out('stdout', now.slice(offset));
    text = now;
    offset = now.length;
  }
}
