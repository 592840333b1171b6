/**
 * `k8ts reset`'s usage and flags, apart from its steps (reset.ts): main.ts answers `--help`
 * and rejects a bad flag with these alone, before loading the command's modules (the API
 * client, PKI, etcd, the kubelet's network code: hundreds of milliseconds), as `up` and
 * `server` do.
 */
import { parseArgs } from 'node:util';

export const resetHelp = `Performs a best effort revert of changes made to this host by 'k8ts init' or 'k8ts join'

Usage:
  k8ts reset [flags]

Flags:
      --cert-dir string   The path to the directory where the certificates are stored (default "/etc/kubernetes/pki")
      --cri-socket string Path to the CRI socket to connect. If empty k8ts uses the one the kubelet was started with by init or join
  -f, --force             Reset the node without prompting for confirmation.
      --dry-run           Don't apply any changes; just output what would be done.

k8ts flags:
      --prefix string     Root of this node's files, as given to init or join (default "/")
  -h, --help              help for reset`;

/** The command's flags, parsed (strict: an unknown flag throws, as cobra's "unknown flag"). */
export function parseResetFlags(args: string[]) {
  return parseArgs({
    args, strict: true, options: {
      force: { type: 'boolean', short: 'f' }, 'dry-run': { type: 'boolean' }, 'cert-dir': { type: 'string' }, 'cri-socket': { type: 'string' }, prefix: { type: 'string', default: '/' },
      'ignore-preflight-errors': { type: 'string' },
    },
  });
}
