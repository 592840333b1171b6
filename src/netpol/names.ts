/**
 * nftables names of the NetworkPolicy table. The table is ours alone
 * (`inet k8ts-netpol`), beside kube-proxy's `ip kube-proxy` and the pod
 * network's `ip k8ts-podnet`, so each owner rewrites only its own table.
 * Chains carry the readable policy name (as kube-proxy's chains carry the
 * Service name) so `nft list table inet k8ts-netpol` tells a person which
 * policy a rule belongs to; a short hash keeps truncated names unique.
 */
import { createHash } from 'node:crypto';

export const tableFamily = 'inet';
export const tableName = 'k8ts-netpol';
export const table = `${tableFamily} ${tableName}`;

/** nft identifiers are at most 256 bytes (NFT_NAME_MAXLEN). */
const maxLen = 200;

export const shortHash = (s: string) => createHash('sha256').update(s).digest('base64url').replace(/[-_]/g, 'x').slice(0, 10);

/** nft identifiers take letters, digits and `/-_.`; anything else becomes `_`. */
const sanitize = (s: string) => s.replace(/[^A-Za-z0-9/_.-]/g, '_');

function name(prefix: string, base: string): string {
  const n = `${prefix}-${shortHash(base)}-${sanitize(base)}`;
  return n.length > maxLen ? n.slice(0, maxLen) : n;
}

export type Direction = 'ingress' | 'egress';

/** The rules of one policy in one direction: `ingress-HASH-ns/name`. */
export const policyChain = (dir: Direction, ns: string, policy: string) => name(dir, `${ns}/${policy}`);
/** The chain shared by every local pod that the same list of policies isolates in a direction. */
export const isolationChain = (dir: Direction, policyKeys: string[]) => `${dir}-pods-${shortHash(policyKeys.join('\n'))}`;
/** The set of pod addresses one peer (podSelector and/or namespaceSelector) selects. */
export const peerSet = (canonical: string) => `peer-${shortHash(canonical)}`;
/** address . protocol . port of every pod whose containers name a port `portName`. */
export const namedPortSet = (portName: string) => `named-port-${sanitize(portName)}`;

/** The verdict maps from a local pod's address to its isolation chain. */
export const ingressMap = 'ingress-pods';
export const egressMap = 'egress-pods';
