/**
 * The pod network changes the node through iproute2 (`ip`, `bridge`) and
 * `nft`, run as child processes: few calls per node change, each readable in
 * a log line, and the same commands an operator types to inspect the result.
 * Tests and the agent use the same runner; `json` asks iproute2 for -j output.
 */
import { execFile } from 'node:child_process';

export interface CommandRunner {
  run(cmd: string, args: string[], input?: string): Promise<string>;
}

export class CommandError extends Error {
  constructor(readonly argv: string[], readonly stderr: string, readonly code: number | string | undefined) {
    super(`${argv.join(' ')}: ${stderr.trim() || `exit ${String(code)}`}`);
  }
}

export const execRunner: CommandRunner = {
  run(cmd, args, input) {
    return new Promise((resolve, reject) => {
      const child = execFile(cmd, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (err) reject(new CommandError([cmd, ...args], String(stderr), (err as NodeJS.ErrnoException).code ?? undefined));
        else resolve(String(stdout));
      });
      // A command that exits before reading its input (or reads none) closes the pipe: EPIPE is its exit status's business.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input ?? '');
    });
  },
};

/** `ip -j ARGS` parsed; iproute2 prints nothing (not "[]") for some empty answers. */
export async function ipJSON<T>(r: CommandRunner, args: string[], cmd = 'ip'): Promise<T[]> {
  const out = (await r.run(cmd, ['-j', ...args])).trim();
  return out ? (JSON.parse(out) as T[]) : [];
}

/** A command whose failure only means "already gone" (deleting a route, a link or a table that is absent). */
export async function ignoreAbsent(p: Promise<unknown>): Promise<void> {
  try { await p; } catch (e) {
    if (!(e instanceof CommandError)) throw e;
    if (!/No such|Cannot find|does not exist|not found|ENOENT/i.test(e.stderr)) throw e;
  }
}
