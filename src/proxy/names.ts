/**
 * nftables object names, as upstream's nftables proxier forms them
 * (pkg/proxy/nftables/proxier.go servicePortChainNameBase and friends):
 * a prefix, a short hash that keeps names unique, and the readable
 * "namespace/name/protocol/portname" so `nft list table ip kube-proxy`
 * tells a person which Service a chain belongs to.
 */
import { createHash } from 'node:crypto';
import { base32NoPadding } from '../util/base32.js';

export const tableName = 'kube-proxy';
export const tableFamily = 'ip';
export const table = `${tableFamily} ${tableName}`;

/** nft's identifiers are at most 256 bytes (NFT_NAME_MAXLEN); upstream keeps well under it. */
const chainNameMaxLen = 200;

/** hashAndTruncate: 8 base32 characters of the SHA-256 of the full name. */
function shortHash(s: string): string {
  return base32NoPadding(createHash('sha256').update(s).digest(), 8);
}

/** nft identifiers take letters, digits and `/-_.`; anything else becomes `_`. */
const sanitize = (s: string) => s.replace(/[^A-Za-z0-9/_.-]/g, '_');

/**
 * Names already formed: a Service with 100,000 endpoints asks for the same
 * 100,000 names on every change of one of them, and a SHA-256 each is most
 * of that sync's work. Bounded: emptied when it outgrows `memoLimit`.
 */
const memo = new Map<string, string>();
const memoLimit = 500_000;

function chainName(prefix: string, base: string): string {
  const k = `${prefix}\0${base}`;
  let name = memo.get(k);
  if (name !== undefined) return name;
  name = `${prefix}-${shortHash(base)}-${sanitize(base)}`;
  if (name.length > chainNameMaxLen) name = name.slice(0, chainNameMaxLen);
  if (memo.size >= memoLimit) memo.clear();
  memo.set(k, name);
  return name;
}

/** "ns/name/tcp/portname": the ServicePortName of upstream, with the protocol lower-cased. */
export const servicePortNameBase = (ns: string, name: string, protocol: string, portName: string) =>
  `${ns}/${name}/${protocol.toLowerCase()}/${portName}`;

export const serviceChain = (spn: string) => chainName('service', spn);
export const externalChain = (spn: string) => chainName('external', spn);
export const clusterLocalChain = (spn: string) => chainName('local', spn);
export const endpointChain = (spn: string, ip: string, port: number) => chainName('endpoint', `${spn}__${ip}/${port}`);
export const affinitySet = (spn: string, ip: string, port: number) => chainName('affinity', `${spn}__${ip}/${port}`);
