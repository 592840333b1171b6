/**
 * `set -x` (xtrace) in the simulated shell, for the Debug Init Containers
 * page ("Init Containers that run a shell script print commands as they're
 * executed ... by running `set -x` at the beginning of the script"):
 *
 *  1. `set -x` turns tracing on for the rest of the shell, `set +x` off;
 *     other options are not simulated (the parser refuses them).
 *  2. While on, each simple command and assignment is written to stderr
 *     after expansion, as busybox ash and bash write it: `+ `, then the
 *     words, each quoted with '...' when it holds a character the shell
 *     would read specially (a word with a ' inside as 'it'"'"'s').
 */

/** Which shells (by their variables' map, one per shell as `$?`) trace. */
const tracing = new WeakSet<Map<string, string>>();

/** The options `set` takes here; undefined when an argument is one the simulation does not have. */
export function xtraceOption(args: (string | undefined)[]): boolean | undefined {
  if (!args.length || !args.every((a) => a === '-x' || a === '+x')) return undefined;
  return args.at(-1) === '-x';
}

/** Rule 1: `set -x` / `set +x`. */
export function setXtrace(env: Map<string, string>, on: boolean): void {
  if (on) tracing.add(env); else tracing.delete(env);
}

const plainWord = /^[A-Za-z0-9_@%+=:,./-]+$/;
const quote = (w: string) => (plainWord.test(w) ? w : `'${w.replace(/'/g, `'"'"'`)}'`);

/** Rule 2: the trace line of a command about to run, or undefined when the shell does not trace. */
export function traceLine(env: Map<string, string>, words: string[]): string | undefined {
  return tracing.has(env) ? `+ ${words.map(quote).join(' ')}\n` : undefined;
}

/** Rule 2 for an assignment: the value quoted, not the name (`+ x='a b'`). */
export function traceAssignment(env: Map<string, string>, name: string, value: string): string | undefined {
  return tracing.has(env) ? `+ ${name}=${quote(value)}\n` : undefined;
}
