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

export interface TailFollow { file: string; lines: number; retry: boolean }

/** busybox polls a followed file once a second. */
const pollMs = 1000;

/** The follow options of `tail ARGS` (-f, -F, -n N, combined as -fn N or -n N -F), or undefined when it is another form. */
export function parseTailFollow(args: (string | undefined)[]): TailFollow | undefined {
  let follow = false;
  let retry = false;
  let lines = 10;
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === undefined) return undefined;
    const m = /^-([fFn]+)$/.exec(a);
    if (!m) { files.push(a); continue; }
    for (const f of m[1]!) {
      if (f === 'f') follow = true;
      else if (f === 'F') { follow = true; retry = true; } else {
        const n = args[++i];
        if (n === undefined || !/^\d+$/.test(n)) return undefined;
        lines = Number(n);
      }
    }
  }
  return follow && files.length === 1 ? { file: files[0]!, lines, retry } : undefined;
}

const lastLines = (text: string, n: number) => {
  if (n === 0) return '';
  const parts = text.split(/(?<=\n)/);
  return parts.slice(-n).join('');
};

/** Runs `tail -f` as above: the exit code when it ends by itself, else it ends when ctx.sleep says the container stopped. */
export async function tailFollow(o: TailFollow, ctx: ShellContext, out: Out): Promise<number | 'stopped'> {
  const read = () => ctx.readFile(o.file);
  let text = read();
  if (text === undefined) {
    out('stderr', `tail: can't open '${o.file}': No such file or directory\n`);
    if (!o.retry) { out('stderr', 'tail: no files\n'); return 1; }
  } else out('stdout', lastLines(text, o.lines));
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
