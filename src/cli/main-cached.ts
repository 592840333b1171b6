/**
 * The entry of the CLI's CommonJS build (scripts/bundle.mjs, main.cjs) that
 * the launcher (launcher.ts) compiles with a V8 code cache: `k8ts up` and
 * `k8ts server` only, so the script holds their code and not every command's
 * (a smaller script to read, and its source is kept in the heap for as long as
 * the process runs).
 */
import { exitWith, runCommand, type CommandModule } from './dispatch.js';
import { loadServer, loadUp } from './start-commands.js';

const commands: Record<string, () => Promise<CommandModule>> = { up: loadUp, server: loadServer };
const [name, ...rest] = process.argv.slice(2);
const load = name !== undefined && Object.hasOwn(commands, name) ? commands[name] : undefined;
exitWith(load ? runCommand(name!, load, rest) : Promise.reject(new Error(`main.cjs runs ${Object.keys(commands).join(' and ')}, not "${name}"`)));
