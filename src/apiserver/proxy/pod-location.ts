/**
 * Where pods/{id}/proxy goes (upstream's pod.ResourceLocation,
 * pkg/registry/core/pod/strategy.go), for a pod already read:
 *
 *  1. The id is `name`, `name:port` or `scheme:name:port` (400 `invalid pod
 *     request "x"` otherwise; api/scheme-name-port.ts). No scheme: http.
 *  2. No port: the first port of the first container that lists one; none
 *     at all: the scheme's default port.
 *  3. The address is the pod's first IP (status.podIPs[0]); none yet, or
 *     one that is not global unicast (loopback, link-local, multicast,
 *     unspecified, judged on the address's value: `0::1` is loopback too;
 *     api/ip-address.ts): 400 `address not allowed`, as upstream answers,
 *     so the API server never proxies to its own loopback.
 *  4. A port number is used as given. k8ts only: a port name is the
 *     container port of that name (upstream hands the name to Go's dialer,
 *     which looks it up in /etc/services); a name no container port has:
 *     503 `error trying to reach service: dial tcp: lookup tcp/NAME: unknown port`.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { badRequest, serviceUnavailable } from '../../api/status.js';
import { isGlobalUnicast } from '../../api/ip-address.js';
import type { SchemeNamePort } from '../../api/scheme-name-port.js';
import type { ProxyTarget } from './transport.js';

export function podProxyTarget(pod: Pod, id: SchemeNamePort): ProxyTarget {
  const containers = pod.spec?.containers ?? [];
  let port = id.port;
  if (port === '') port = String(containers.find((c) => c.ports?.length)?.ports?.[0]?.containerPort ?? '');
  const ip = pod.status?.podIPs?.[0]?.ip ?? '';
  if (!isGlobalUnicast(ip)) throw badRequest('address not allowed');
  return { scheme: id.scheme || 'http', host: ip, port: port === '' ? undefined : containerPortNumber(containers, port) };
}

function containerPortNumber(containers: NonNullable<Pod['spec']>['containers'], port: string): number {
  if (/^\d+$/.test(port)) return Number(port);
  for (const c of containers) {
    const named = c.ports?.find((p) => p.name === port);
    if (named) return named.containerPort;
  }
  throw serviceUnavailable(`error trying to reach service: dial tcp: lookup tcp/${port}: unknown port`);
}
