/**
 * V8 flags a command sets for itself before its modules load. Read by the CLI
 * (main.ts) and by the launcher (launcher.ts), which must set them before it
 * compiles the CLI: V8 accepts a code cache only under the flags it was made with.
 */
const flags: Record<string, string> = {
  // The quick start favours a small footprint over throughput: 25 MB less idle RSS (bench/startup.ts).
  up: '--optimize-for-size',
  // A fresh server spends its first thousands of creates with TurboFan compiling the request path on
  // the cores the clients share; half V8's cumulative inlining budget (920 bytes of bytecode inlined
  // into one function) makes those compiles smaller: 10% less CPU on V8's threads and 7% less in all
  // over a fresh server's first 2,000 creates, warm creates the same (bench/cold-creates.ts,
  // bench/RESULTS.md `cold11`). A quarter of it (230) cut more but cost warm creates 10-20%.
  server: '--max-inlined-bytecode-size-cumulative=460',
};

/**
 * V8's heap growing factor for the commands that run the API server, when K8TS_HEAP_GROWING_PERCENT
 * sets one: the old generation may grow to 1 + percent/100 times the live heap before the next full
 * collection. V8's own factor goes up to 4, and at 5,000 nodes most of the serving heap was garbage
 * waiting for that collection: 50 (Go's GOGC=50 trade) took the server's peak RSS from 1,008 to
 * 684 MiB at 5,000 nodes and 10,000 pods (bench/RESULTS.md, `memory3`). Fixed for every cluster it
 * cost 8-28% more server CPU per pod create on a quiet machine (`session-2026-12-04`), so unset the
 * server adapts the factor to its live heap instead (heap-headroom.ts). This is the value the docs suggest.
 */
export const suggestedHeapGrowingPercent = 50;

/** Commands that run an API server. */
const servingCommands = new Set(['up', 'server']);

/** The environment variable that sets the factor: a percentage; unset, empty, 0 or not a percentage: V8's own. */
export const heapGrowingPercentEnv = 'K8TS_HEAP_GROWING_PERCENT';

/**
 * The V8 flags of `command`. `env` and `nodeOptions` (node's own command line and NODE_OPTIONS):
 * a --heap-growing-percent given to node itself wins over K8TS_HEAP_GROWING_PERCENT's.
 */
export function v8FlagsFor(
  command: string | undefined, env: NodeJS.ProcessEnv = process.env,
  nodeOptions: readonly string[] = [...process.execArgv, env.NODE_OPTIONS ?? ''],
): string | undefined {
  if (command === undefined) return undefined;
  const out: string[] = [];
  // A flag given to node itself (either spelling, or its --no- form) wins over ours.
  if (Object.hasOwn(flags, command) && !givenToNode(flags[command], nodeOptions)) out.push(flags[command]);
  if (servingCommands.has(command)) {
    const percent = heapGrowingPercent(env[heapGrowingPercentEnv], nodeOptions);
    if (percent !== undefined) out.push(`--heap-growing-percent=${percent}`);
  }
  return out.length ? out.join(' ') : undefined;
}

/**
 * Whether the server adapts the factor to its live heap (heap-headroom.ts): when neither
 * K8TS_HEAP_GROWING_PERCENT (unset or empty) nor node's own options set one. 0 keeps V8's own.
 */
export function adaptsHeapGrowing(
  env: NodeJS.ProcessEnv = process.env, nodeOptions: readonly string[] = [...process.execArgv, env.NODE_OPTIONS ?? ''],
): boolean {
  return !env[heapGrowingPercentEnv]?.trim() && !nodeOptions.some((o) => /--heap[-_]growing[-_]percent\b/.test(o));
}

/** Whether node's options name the V8 flag `flag` (`--name[=value]`). */
function givenToNode(flag: string, nodeOptions: readonly string[]): boolean {
  const name = flag.replace(/^--(no-)?/, '').replace(/=.*$/, '').replace(/[-_]/g, '[-_]');
  return nodeOptions.some((o) => new RegExp(`--(no[-_])?${name}\\b`).test(o));
}

/** The factor to set, or undefined to leave V8's (node was given one, or none is asked for). */
function heapGrowingPercent(override: string | undefined, nodeOptions: readonly string[]): number | undefined {
  if (nodeOptions.some((o) => /--heap[-_]growing[-_]percent\b/.test(o))) return undefined;
  const n = Number(override?.trim() || Number.NaN);
  // Not a percentage: V8's own rather than a start that fails over a tuning knob.
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
