/**
 * Structured logging: one JSON object per line on stderr, klog-like fields
 * (ts, level, component, msg, plus key/values). Level from K8TS_LOG_LEVEL
 * (error|warn|info|debug; default info). With K8TS_LOG_FILE set (by `k8ts up`
 * on a terminal), the lines go to that file instead, appended, and errors
 * are also shown on stderr as one short line, so a person sees progress and
 * failures while machines still get every record.
 */
import { openSync, writeSync } from 'node:fs';
export type Level = 'error' | 'warn' | 'info' | 'debug';
const order: Record<Level, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(msg: string, kv?: Record<string, unknown>): void;
  warn(msg: string, kv?: Record<string, unknown>): void;
  info(msg: string, kv?: Record<string, unknown>): void;
  debug(msg: string, kv?: Record<string, unknown>): void;
  with(component: string): Logger;
}

let logFile: { path: string; fd: number } | undefined;

/** Where a record goes: K8TS_LOG_FILE (opened once per thread, appended) or stderr. */
function defaultOut(line: string, level: Level, msg: string): void {
  const path = process.env.K8TS_LOG_FILE;
  if (!path) { process.stderr.write(line + '\n'); return; }
  if (logFile?.path !== path) logFile = { path, fd: openSync(path, 'a', 0o600) };
  writeSync(logFile.fd, line + '\n');
  if (level === 'error') process.stderr.write(`error: ${msg} (details in ${path})\n`);
}

export function createLogger(component: string, level: Level = (process.env.K8TS_LOG_LEVEL as Level) || 'info',
  out?: (line: string) => void): Logger {
  const max = order[level] ?? order.info;
  const emit = (lvl: Level) => (msg: string, kv?: Record<string, unknown>) => {
    if (order[lvl] > max) return;
    const rec: Record<string, unknown> = { ts: new Date().toISOString(), level: lvl, component, msg };
    if (kv) for (const [k, v] of Object.entries(kv)) rec[k] = v instanceof Error ? v.message : v;
    if (out) out(JSON.stringify(rec)); else defaultOut(JSON.stringify(rec), lvl, msg);
  };
  return {
    error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug'),
    with: (c: string) => createLogger(`${component}.${c}`, level, out),
  };
}

/** A logger that drops everything, for tests. */
export const silentLogger: Logger = {
  error() {}, warn() {}, info() {}, debug() {}, with() { return silentLogger; },
};
