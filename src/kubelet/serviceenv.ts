/**
 * The environment a Service gives containers (upstream
 * pkg/kubelet/envvars FromServices), for the master service `kubernetes` in
 * `default`, which every container gets whatever enableServiceLinks says,
 * so in-cluster clients find the API server (KUBERNETES_SERVICE_HOST/PORT):
 *   <NAME>_SERVICE_HOST, <NAME>_SERVICE_PORT (first port),
 *   <NAME>_SERVICE_PORT_<PORTNAME> per named port, <NAME>_PORT (first port's
 *   URL), and per port <NAME>_PORT_<port>_<PROTO>{,_PROTO,_PORT,_ADDR}.
 * A headless service or one without a cluster IP gives nothing.
 */
import type { Service } from 'kubernetes-types/core/v1.js';

const envName = (s: string) => s.toUpperCase().replace(/-/g, '_');

export function serviceEnvVars(svc: Service): Map<string, string> {
  const out = new Map<string, string>();
  const ip = svc.spec?.clusterIP;
  const ports = svc.spec?.ports ?? [];
  if (!ip || ip === 'None' || !ports.length) return out;
  const name = envName(svc.metadata?.name ?? '');
  out.set(`${name}_SERVICE_HOST`, ip);
  out.set(`${name}_SERVICE_PORT`, String(ports[0].port));
  for (const p of ports) if (p.name) out.set(`${name}_SERVICE_PORT_${envName(p.name)}`, String(p.port));
  const host = ip.includes(':') ? `[${ip}]` : ip;
  const proto = (p: (typeof ports)[number]) => (p.protocol ?? 'TCP').toLowerCase();
  out.set(`${name}_PORT`, `${proto(ports[0])}://${host}:${ports[0].port}`);
  for (const p of ports) {
    const prefix = `${name}_PORT_${p.port}_${(p.protocol ?? 'TCP').toUpperCase()}`;
    out.set(prefix, `${proto(p)}://${host}:${p.port}`);
    out.set(`${prefix}_PROTO`, proto(p));
    out.set(`${prefix}_PORT`, String(p.port));
    out.set(`${prefix}_ADDR`, ip);
  }
  return out;
}
