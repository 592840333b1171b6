/**
 * V8 flags a command sets for itself before its modules load. Read by the CLI
 * (main.ts) and by the launcher (launcher.ts), which must set them before it
 * compiles the CLI: V8 accepts a code cache only under the flags it was made with.
 */
const flags: Record<string, string> = {
  // The quick start favours a small footprint over throughput: 25 MB less idle RSS (bench/startup.ts).
  // `k8ts server` keeps V8's defaults: it is the one that must keep up with thousands of nodes.
  up: '--optimize-for-size',
};

export function v8FlagsFor(command: string | undefined): string | undefined {
  return command === undefined ? undefined : Object.hasOwn(flags, command) ? flags[command] : undefined;
}
