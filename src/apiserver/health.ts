/**
 * /healthz, /livez and /readyz as upstream's healthz package answers them
 * (k8s.io/apiserver/pkg/server/healthz, handleRootHealth):
 *
 *  1. Every check runs unless named by `?exclude=NAME`, which prints
 *     `[+]NAME excluded: ok`; an exclude that names no check adds
 *     `warn: some health checks cannot be excluded: no matches for "x"`.
 *  2. A failed check makes the answer 500 with one line per check
 *     (`[+]NAME ok`, `[-]NAME failed: reason withheld`) and
 *     `<endpoint> check failed`.
 *  3. All passing: `ok`, or with `?verbose` the lines and
 *     `<endpoint> check passed` (what `kubectl get --raw='/readyz?verbose'`
 *     prints in the docs).
 *  4. /<endpoint>/<check> runs one check (`/readyz/poststarthook/rbac/bootstrap-roles`): `ok`, or 500
 *     `internal server error: <reason>`.
 */
/** A check answers undefined when healthy, else the reason (a probe of storage answers later). */
export interface HealthCheck { name: string; check: () => string | undefined | Promise<string | undefined> }

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export interface HealthAnswer { code: number; body: string }

export async function healthAnswer(endpoint: HealthEndpoint, checks: HealthCheck[], url: URL): Promise<HealthAnswer | undefined> {
  // A check's name may hold slashes (`poststarthook/rbac/bootstrap-roles`).
  const sub = url.pathname.replace(/\/$/, '').split('/').slice(2).join('/');
  if (sub) {
    const one = checks.find((c) => c.name === sub);
    if (!one) return undefined;
    const failed = await one.check();
    return failed === undefined ? { code: 200, body: 'ok' } : { code: 500, body: `internal server error: ${failed}\n` };
  }
  const excluded = new Set(url.searchParams.getAll('exclude'));
  // Upstream runs the checks one after another; they are independent, so here they run at once.
  const results = await Promise.all(checks.map((c) => (excluded.has(c.name) ? undefined : c.check())));
  let lines = '';
  let failed = false;
  for (const [i, c] of checks.entries()) {
    if (excluded.delete(c.name)) { lines += `[+]${c.name} excluded: ok\n`; continue; }
    if (results[i] === undefined) { lines += `[+]${c.name} ok\n`; continue; }
    lines += `[-]${c.name} failed: reason withheld\n`;
    failed = true;
  }
  if (excluded.size) lines += `warn: some health checks cannot be excluded: no matches for ${[...excluded].map((n) => `"${n}"`).join(',')}\n`;
  if (failed) return { code: 500, body: `${lines}${endpoint} check failed\n` };
  return { code: 200, body: url.searchParams.has('verbose') ? `${lines}${endpoint} check passed\n` : 'ok' };
}
