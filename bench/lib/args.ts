/**
 * Command-line flags of a benchmark: node:util parseArgs with a usage text.
 * `--help`/`-h` prints the usage and exits 0, and a flag the benchmark does
 * not know prints the error and the usage to stderr and exits 2 (as Go's
 * flag package and cobra do), both before the benchmark starts anything: a
 * benchmark that ignored a flag it did not know would run for minutes and
 * rewrite its bench/RESULTS.md section with a command it never honoured.
 */
import { parseArgs } from 'node:util';
import { basename } from 'node:path';

/** One flag: parseArgs' option, plus the sentence `--help` prints beside it. */
export interface BenchOption {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: string | boolean | string[] | boolean[];
  help?: string;
}

export interface BenchArgsConfig {
  options?: Record<string, BenchOption>;
  allowPositionals?: boolean;
  /** The positional arguments as the usage line shows them, e.g. `FILE` or `[ROUNDS [KEYS]]`. */
  positionals?: string;
  /** The arguments to parse; default process.argv.slice(2). */
  args?: readonly string[];
}

type Parsed<T extends BenchArgsConfig> = ReturnType<typeof parseArgs<T & { strict: true }>>;

/** What parsing asks for: run, print help (exit 0), or refuse (exit 2). */
export type BenchArgsOutcome<T extends BenchArgsConfig> =
  | { kind: 'run'; parsed: Parsed<T> }
  | { kind: 'help'; text: string }
  | { kind: 'error'; text: string };

const helpOption: BenchOption = { type: 'boolean', short: 'h', help: 'print this help and exit' };

/** The usage text: the command line, the description, one line per flag with its default. */
export function usage(program: string, about: string, config: BenchArgsConfig): string {
  const options = { ...config.options, help: helpOption };
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ' VALUE' : ''}`;
    const shown = o.default === undefined || o.default === false ? '' : ` (default ${JSON.stringify(o.default)})`;
    return [flag, `${o.help ?? ''}${shown}${o.multiple ? ' (repeatable)' : ''}`.trim()] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return [
    `usage: node dist/bench/${program} [options]${config.positionals ? ` ${config.positionals}` : ''}`,
    '',
    about,
    '',
    'options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`.trimEnd()),
    '',
  ].join('\n');
}

/** Parses without touching the process: the unit tests call this. */
export function parseBenchArgs<T extends BenchArgsConfig>(program: string, about: string, config: T): BenchArgsOutcome<T> {
  const args = config.args ?? process.argv.slice(2);
  const options = Object.fromEntries(Object.entries({ ...config.options, help: helpOption })
    .map(([name, { help: _help, ...o }]) => [name, o]));
  const text = () => usage(program, about, config);
  // `--help` wins over a bad flag beside it, as with Go's flag package when it comes first.
  const end = args.indexOf('--');
  const wantsHelp = (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
  try {
    const parsed = parseArgs({ args: [...args], options, allowPositionals: config.allowPositionals ?? false, strict: true });
    if (parsed.values.help) return { kind: 'help', text: text() };
    delete (parsed.values as Record<string, unknown>).help;
    return { kind: 'run', parsed: parsed as unknown as Parsed<T> };
  } catch (e) {
    if (wantsHelp) return { kind: 'help', text: text() };
    if (!(e instanceof TypeError) || !String((e as { code?: string }).code).startsWith('ERR_PARSE_ARGS_')) throw e;
    return { kind: 'error', text: `error: ${e.message}\n${text()}` };
  }
}

/**
 * The benchmark's flags from process.argv; on `--help` or a bad flag this
 * prints and exits, so call it before the benchmark starts servers or writes.
 */
export function benchArgs<T extends BenchArgsConfig>(about: string, config: T): Parsed<T> {
  const outcome = parseBenchArgs(basename(process.argv[1] ?? 'bench.js'), about, config);
  if (outcome.kind === 'run') return outcome.parsed;
  if (outcome.kind === 'help') {
    process.stdout.write(outcome.text);
    process.exit(0);
  }
  process.stderr.write(outcome.text);
  process.exit(2);
}
