#!/usr/bin/env node
/**
 * The installed `k8ts` (dist/bundle/main.js; scripts/bundle.mjs builds it).
 * `k8ts up` and `k8ts server`, whose spawn-to-ready time issue 20 measures,
 * run the CLI from a CommonJS build of it (main.cjs, one script) compiled with
 * a V8 code cache: V8 then deserializes the functions that ran before the
 * last start was ready instead of parsing and compiling ~4 MB of JavaScript
 * (Node 20 has no compile cache for ES modules; module.enableCompileCache is
 * Node 22). Every other command, and `--help`, runs the ES module bundle
 * (cli.js) as before: without a cache the whole script would be parsed, which
 * costs a short command more than its modules do.
 *
 * The cache is taken when the command announces it has started (started.ts):
 * at build time by a training start (scripts/train-code-cache.mjs), into
 * dist/bundle/code-cache; on a machine where that one does not fit (another
 * node, other V8 flags: V8 rejects it) by the first start, beside it or, when
 * the installation is read-only, in the user's cache directory. A rejected or
 * missing cache costs that start nothing but the compile it would have done anyway.
 *
 * A restart (an existing data directory) runs code a fresh start does not
 * (the stored objects decoded, compared and kept rather than created), and a
 * cache is only what ran before the start that wrote it was ready: the
 * training restarts once more with K8TS_CODE_CACHE_RETRAIN set, which saves the
 * cache again although it was accepted, now holding both starts' functions.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Script, constants } from 'node:vm';
import { afterPoll } from '../util/after-poll.js';
import { readLargeFile, readScriptSource } from './read-script.js';
import { startedEvent } from './started.js';
import { heapGrowingPercentEnv, v8FlagsFor } from './v8-flags.js';

/** The sha256 of main.cjs, set by scripts/bundle.mjs: a cache belongs to one build's script. */
declare const K8TS_CJS_HASH: string | undefined;

/** The commands run from main.cjs with a code cache: those that announce their start. */
const cached = new Set(['up', 'server']);
/** Set by the build's training restart (scripts/train-code-cache.mjs): save the cache even when it was accepted. */
const retrainEnv = 'K8TS_CODE_CACHE_RETRAIN';

const here = dirname(fileURLToPath(import.meta.url));
const [command, ...rest] = process.argv.slice(2);
const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
const cjsHash = typeof K8TS_CJS_HASH === 'string' ? K8TS_CJS_HASH : undefined;

if (cjsHash && command && cached.has(command) && !own.includes('--help') && !own.includes('-h')) runCached(command, cjsHash);
else await import(new URL('./cli.js', import.meta.url).href);

function runCached(name: string, hash: string): void {
  // The command's V8 flags first: V8 checks a cache against the flags in force when it compiles.
  const v8Flags = v8FlagsFor(name);
  if (v8Flags) setFlagsFromString(v8Flags);
  const filename = join(here, 'main.cjs');
  // Not readFileSync: its growing buffers would leave glibc keeping ~12 MB of freed memory (read-script.ts).
  const source = readScriptSource(filename);
  const file = cacheFileName(name, hash);
  const dirs = cacheDirs();
  let cachedData: Buffer | undefined;
  for (const dir of dirs) {
    try { cachedData = readLargeFile(join(dir, file)); break; } catch { /* not there: the next, or none */ }
  }
  const script = new Script(source, { filename, cachedData, importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER });
  if (cachedData === undefined || script.cachedDataRejected || process.env[retrainEnv]) {
    // After the loop's next poll for I/O: a readiness check already waiting is answered first.
    process.once(startedEvent, () => afterPoll(() => saveCache(script.createCachedData(), dirs, file, name, hash)));
  }
  // main.cjs is one function expression, CommonJS's module wrapper (scripts/bundle.mjs).
  const main = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  const module = { exports: {} };
  main(module.exports, createRequire(filename), module, filename, here);
}

/**
 * One cache per command, build, node and set of node options: two of them
 * taking turns (a test run with other flags) keep their own instead of
 * rewriting one another's.
 */
function cacheFileName(name: string, hash: string): string {
  // The V8 flags' override too (v8-flags.ts): a cache made under other flags is rejected.
  const options = [...process.execArgv, process.env.NODE_OPTIONS ?? '', process.env[heapGrowingPercentEnv] ?? ''].filter(Boolean).join('\0');
  const optionsKey = options === '' ? 'default' : createHash('sha256').update(options).digest('hex').slice(0, 8);
  return `${name}-${hash.slice(0, 16)}-${process.version}-${process.arch}-${optionsKey}.v8cache`;
}

/** Beside the bundle (where the build's training start writes), then the user's cache directory. */
function cacheDirs(): string[] {
  const dirs = [join(here, 'code-cache')];
  try {
    dirs.push(join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'k8ts', 'code-cache'));
  } catch { /* no home directory: beside the bundle only */ }
  return dirs;
}

/** Written whole or not at all (another start may read it meanwhile); the command's caches of other builds go. */
function saveCache(data: Buffer, dirs: string[], file: string, name: string, hash: string): void {
  const isOther = (f: string) => f.startsWith(`${name}-`) && !f.startsWith(`${name}-${hash.slice(0, 16)}-`) && f.endsWith('.v8cache');
  for (const dir of dirs) {
    const tmp = join(dir, `.${file}.${process.pid}`);
    try {
      mkdirSync(dir, { recursive: true });
      // Readable by every user of the installation (the running command's umask may be 077); it holds only compiled code.
      writeFileSync(tmp, data);
      chmodSync(tmp, 0o644);
      renameSync(tmp, join(dir, file));
      for (const old of readdirSync(dir)) if (isOther(old)) rmSync(join(dir, old), { force: true });
      return;
    } catch {
      try { rmSync(tmp, { force: true }); } catch { /* a directory we cannot write to: nothing was left */ }
    }
  }
}
