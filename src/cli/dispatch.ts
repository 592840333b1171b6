/**
 * Running one command of the CLI, shared by its two entries: main.ts (every
 * command) and main-cached.ts (the commands the launcher runs with a code cache).
 */
import { setFlagsFromString } from 'node:v8';
import { v8FlagsFor } from './v8-flags.js';

export interface CommandModule { help: string; run(args: string[]): Promise<number> }

/** `k8ts NAME ARGS...`: the command's V8 flags, its modules, then its help or its run. */
export async function runCommand(name: string, load: () => Promise<CommandModule>, rest: string[]): Promise<number> {
  const v8Flags = v8FlagsFor(name);
  if (v8Flags) setFlagsFromString(v8Flags);
  const mod = await load();
  // Flags after "--" belong to a command k8ts runs (k8ts lab exec NAME -- kubectl --help).
  const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (own.includes('--help') || own.includes('-h')) { console.log(mod.help); return 0; }
  try {
    return await mod.run(rest);
  } catch (err) {
    // cobra: a flag error prints the command's usage after it.
    const { commandErrorText } = await import('./flag-errors.js');
    console.error(commandErrorText(name, err, mod.help));
    process.exit(1);
  }
}

/** The process's exit code from a command's result; a failure is printed and exits at once. */
export function exitWith(result: Promise<number>): void {
  result.then((code) => { if (code !== 0) process.exitCode = code; }, async (err) => {
    const { commandErrorText } = await import('./flag-errors.js');
    console.error(commandErrorText(process.argv[2], err));
    // Exit now: a listening socket or a timer left by the failed start must not keep a process
    // that cannot do its job alive.
    process.exit(1);
  });
}
