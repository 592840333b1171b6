/**
 * Command-line errors in the words users of kubeadm and kubectl know. Every
 * k8ts command parses its flags with node:util's parseArgs; its errors
 * ("Unknown option '--x'. To specify a positional argument ...") are turned
 * into pflag's and cobra's ("unknown flag: --x"), and printed as the command
 * family upstream would print them:
 *  - kubeadm's verbs (init, join, reset, token) as kubeadm's CheckErr does:
 *    the error, then "To see the stack trace of this error execute with
 *    --v=5 or higher", exit 1 (kubeadm's root command silences cobra's usage);
 *  - the others as a cobra command: "Error: ..." followed by the command's
 *    usage (cobra's UsageString: from "Usage:" on), exit 1.
 * Required flags are checked with `requireFlags` / `requireOneOf`, which throw
 * cobra's errors (ValidateRequiredFlags, ValidateFlagGroups) for the same path.
 */

const REQUIRED_FLAG = 'ERR_K8TS_REQUIRED_FLAG';

/** cobra's `required flag(s) "a", "b" not set` when any of `names` has no value. */
export function requireFlags<T extends object, K extends keyof T & string>(values: T, names: K[]): asserts values is T & { [P in K]-?: NonNullable<T[P]> } {
  const missing = names.filter((n) => values[n] === undefined || values[n] === '' as unknown);
  if (missing.length) {
    throw Object.assign(new Error(`required flag(s) ${missing.map((n) => `"${n}"`).join(', ')} not set`), { code: REQUIRED_FLAG });
  }
}

/** cobra's MarkFlagsOneRequired: `at least one of the flags in the group [a b] is required`. */
export function requireOneOf(values: Record<string, unknown>, names: string[]): void {
  if (names.some((n) => values[n] !== undefined && values[n] !== '')) return;
  throw Object.assign(new Error(`at least one of the flags in the group [${names.join(' ')}] is required`), { code: REQUIRED_FLAG });
}

const kubeadmVerbs = new Set(['init', 'join', 'reset', 'token']);

/** pflag's words for a parseArgs error, or undefined when `err` is not one. */
export function flagErrorMessage(err: unknown): string | undefined {
  const code = (err as { code?: string } | undefined)?.code;
  const message = (err as Error | undefined)?.message ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const opt = /Unknown option '([^']+)'/.exec(message)?.[1] ?? '';
      // pflag: a single-dash name is a run of shorthands, and the first unknown one is named.
      if (opt.startsWith('--') || !opt.startsWith('-')) return `unknown flag: ${opt}`;
      return `unknown shorthand flag: '${opt.slice(1, 2)}' in ${opt}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const missing = /Option '(?:-\w, )?(--[^ ']+)[^']*' argument missing/.exec(message);
      if (missing) return `flag needs an argument: ${missing[1]}`;
      const boolean = /Option '(--[^']+)' does not take an argument/.exec(message);
      if (boolean) return `invalid argument for "${boolean[1]}" flag: a boolean flag takes no value here; write ${boolean[1]} or leave it out`;
      return message;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const arg = /Unexpected argument '([^']*)'/.exec(message)?.[1] ?? '';
      return `unknown command "${arg}"`;
    }
    case REQUIRED_FLAG: return message;
    default: return undefined;
  }
}

/** cobra's UsageString from a command's help text: the part from "Usage:" on. */
function usageOf(help: string): string {
  const at = help.indexOf('Usage:');
  return at < 0 ? help : help.slice(at);
}

/**
 * The lines a failed command prints to stderr: a flag error in upstream's form (with the command's
 * usage when its `help` is known, else where to find it), else `Error: message`.
 */
export function commandErrorText(command: string | undefined, err: unknown, help?: string): string {
  const flagError = flagErrorMessage(err);
  const message = flagError ?? (err instanceof Error ? err.message : String(err));
  if (command && kubeadmVerbs.has(command)) return `${message}\nTo see the stack trace of this error execute with --v=5 or higher`;
  if (flagError && command) return `Error: ${flagError}\n${help ? `${usageOf(help)}\n` : `Run 'k8ts ${command} --help' for usage.`}`;
  return `Error: ${message}`;
}
