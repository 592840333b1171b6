/**
 * busybox's `ip addr` and `ip route` in a simulated container (the Using
 * Source IP tutorial runs `ip addr` in busybox to learn the pod's address).
 * A simulated pod has the interfaces a bridge CNI plugin gives it: lo, and
 * eth0 with the pod's IP in its node's /24 (ipam.ts: .1 is the gateway), a
 * MAC made of 0a:58 and the IP's bytes (as the bridge plugin makes it) and
 * the IPv6 link-local address derived from that MAC (EUI-64). The pod's IP
 * is the one the kubelet wrote into /etc/hosts for its hostname; a pod
 * without one (host network) shows lo alone.
 */

/** `ip ARGS` as busybox answers it; undefined: a form the simulation does not know. */
export function ipCommand(args: string[], podIP: string | undefined): string | undefined {
  const words = args.filter((a) => !a.startsWith('-'));
  const [object = '', verb = 'show'] = words;
  if (!['show', 'list', 'ls', 'sh', 'l', 's'].includes(verb) || words.length > 2) return undefined;
  if (object && 'address'.startsWith(object)) return addresses(podIP);
  if (object && 'route'.startsWith(object)) return routes(podIP);
  return undefined;
}

function addresses(podIP: string | undefined): string {
  const lo = '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue qlen 1000\n' +
    '    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n' +
    '    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n' +
    '    inet6 ::1/128 scope host \n       valid_lft forever preferred_lft forever\n';
  if (!podIP) return lo;
  const bytes = podIP.split('.').map(Number);
  const mac = [0x0a, 0x58, ...bytes].map((b) => b.toString(16).padStart(2, '0')).join(':');
  return lo + '3: eth0@if4: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue \n' +
    `    link/ether ${mac} brd ff:ff:ff:ff:ff:ff\n` +
    `    inet ${podIP}/24 brd ${bytes.slice(0, 3).join('.')}.255 scope global eth0\n       valid_lft forever preferred_lft forever\n` +
    `    inet6 ${linkLocal([0x0a, 0x58, ...bytes])}/64 scope link \n       valid_lft forever preferred_lft forever\n`;
}

function routes(podIP: string | undefined): string {
  if (!podIP) return '';
  const net = podIP.split('.').slice(0, 3).join('.');
  return `default via ${net}.1 dev eth0 \n${net}.0/24 dev eth0 scope link  src ${podIP} \n`;
}

/** fe80:: and the MAC's EUI-64 (its universal/local bit flipped, ff:fe in the middle), in IPv6's short form. */
function linkLocal(mac: number[]): string {
  const eui = [mac[0]! ^ 0x02, mac[1]!, mac[2]!, 0xff, 0xfe, mac[3]!, mac[4]!, mac[5]!];
  const groups = [0, 2, 4, 6].map((i) => ((eui[i]! << 8) | eui[i + 1]!).toString(16));
  return `fe80::${groups.join(':')}`;
}
