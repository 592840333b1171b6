/**
 * `hostname` in a simulated container, as busybox's and Debian's answer it:
 * no option prints the kernel's hostname; `-f` (`--fqdn`) the canonical name
 * the resolver finds for it, `-d` (`--domain`) that name past its first dot,
 * `-i` (`--ip-address`) its address followed by a space, `-s` (`--short`) the
 * hostname up to its first dot. The resolver reads /etc/hosts first, where
 * the kubelet writes `IP FQDN hostname` for a pod with a subdomain (the DNS
 * for Services and Pods page's busybox-1.busybox-subdomain...), so the first
 * line naming the host gives its canonical name and address.
 */
export function hostnameCommand(args: string[], hostname: string, hostsFile: string | undefined, out: (text: string) => void): number {
  const flag = args.find((a) => a.startsWith('-'));
  if (!flag) { out(`${hostname}\n`); return 0; }
  if (flag === '-s' || flag === '--short') { out(`${hostname.split('.')[0]}\n`); return 0; }
  const entry = hostsEntry(hostsFile ?? '', hostname);
  const canonical = entry?.names[0] ?? hostname;
  switch (flag) {
    case '-f': case '--fqdn': case '--long': out(`${canonical}\n`); return 0;
    case '-d': case '--domain': { const dot = canonical.indexOf('.'); out(dot < 0 ? '' : `${canonical.slice(dot + 1)}\n`); return 0; }
    case '-i': case '--ip-address': out(entry ? `${entry.ip} \n` : '\n'); return 0;
    default: out(`${hostname}\n`); return 0;
  }
}

/** The first /etc/hosts line naming `host`: its address and names. */
function hostsEntry(text: string, host: string): { ip: string; names: string[] } | undefined {
  for (const line of text.split('\n')) {
    const [ip, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (ip && names.includes(host)) return { ip, names };
  }
  return undefined;
}

/** The address /etc/hosts gives `host` (the pod's IP, which the kubelet writes for its hostname). */
export function hostsAddress(text: string, host: string): string | undefined {
  return hostsEntry(text, host)?.ip;
}
