/**
 * A new Service's ipFamilies and ipFamilyPolicy, checked and filled as
 * upstream's service registry does (initIPFamilyFields in
 * pkg/registry/core/service/storage/alloc.go), for the clusters k8ts serves:
 * one service CIDR, so one family (IPv4). In upstream's order:
 *  1. SingleStack with two clusterIPs or two ipFamilies is refused.
 *  2. A requested clusterIP beyond the listed ipFamilies adds its family;
 *     one of a family the cluster lacks is refused.
 *  3. Headless without a selector: ipFamilies default to the cluster's
 *     family and, unless SingleStack, get the other one too (upstream allows
 *     it on a single-stack cluster: such a Service has no cluster IP). Done.
 *  4. RequireDualStack is refused, and so is a family the cluster lacks.
 *  5. No ipFamilies: the cluster's family.
 * Without these a Service asking for IPv6 got an IPv4 address, and one
 * requiring dual stack got a single one.
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import { invalid, GoValue, type FieldError } from '../api/field-errors.js';

const familyOf = (ip: string) => (ip.includes(':') ? 'IPv6' : 'IPv4');
const goStrings = (v: string[]) => new GoValue(`[]string{${v.map((s) => JSON.stringify(s)).join(', ')}}`);

export function initIPFamilyFields(svc: Service, clusterFamilies: readonly string[] = ['IPv4']): FieldError[] {
  const spec = svc.spec ?? (svc.spec = {});
  if (spec.type === 'ExternalName') return [];
  const policy = spec.ipFamilyPolicy ?? 'SingleStack';
  const families = spec.ipFamilies ?? [];
  const ips = spec.clusterIPs?.length ? spec.clusterIPs : (spec.clusterIP ? [spec.clusterIP] : []);
  const errs: FieldError[] = [];
  if (policy === 'SingleStack') {
    if (ips.length === 2) errs.push(invalid('spec.ipFamilyPolicy', policy, 'must be RequireDualStack or PreferDualStack when multiple IPs are specified'));
    if (families.length === 2) errs.push(invalid('spec.ipFamilyPolicy', policy, 'must be RequireDualStack or PreferDualStack when multiple IP families are specified'));
  }
  for (const [i, ip] of ips.entries()) {
    if (ip === 'None') break;
    if (i < families.length) continue;
    const fam = familyOf(ip);
    if (!clusterFamilies.includes(fam)) errs.push(invalid(`spec.clusterIPs[${i}]`, goStrings(ips), `${fam} is not configured on this cluster`));
    else families.push(fam);
  }
  if (errs.length) return errs;
  if (spec.clusterIP === 'None' && Object.keys(spec.selector ?? {}).length === 0) {
    if (families.length === 0) families.push(clusterFamilies[0]!);
    if (families.length < 2 && policy !== 'SingleStack') families.push(families[0] === 'IPv4' ? 'IPv6' : 'IPv4');
    spec.ipFamilies = families;
    return [];
  }
  if (policy === 'RequireDualStack' && clusterFamilies.length < 2) {
    errs.push(invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
  }
  for (const [i, fam] of families.entries()) {
    if (!clusterFamilies.includes(fam)) errs.push(invalid(`spec.ipFamilies[${i}]`, fam, 'not configured on this cluster'));
  }
  if (errs.length) return errs;
  spec.ipFamilies = families.length ? families : [clusterFamilies[0]!];
  return [];
}
