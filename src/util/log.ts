/**
 * Structured logging: one JSON object per line on stderr, klog-like fields
 * (ts, level, component, msg, plus key/values). Level from K8TS_LOG_LEVEL
 * (error|warn|info|debug; default info).
 */
export type Level = 'error' | 'warn' | 'info' | 'debug';
const order: Record<Level, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(msg: string, kv?: Record<string, unknown>): void;
  warn(msg: string, kv?: Record<string, unknown>): void;
  info(msg: string, kv?: Record<string, unknown>): void;
  debug(msg: string, kv?: Record<string, unknown>): void;
  with(component: string): Logger;
}

export function createLogger(component: string, level: Level = (process.env.K8TS_LOG_LEVEL as Level) || 'info',
  out: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const max = order[level] ?? order.info;
  const emit = (lvl: Level) => (msg: string, kv?: Record<string, unknown>) => {
    if (order[lvl] > max) return;
    const rec: Record<string, unknown> = { ts: new Date().toISOString(), level: lvl, component, msg };
    if (kv) for (const [k, v] of Object.entries(kv)) rec[k] = v instanceof Error ? v.message : v;
    out(JSON.stringify(rec));
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
