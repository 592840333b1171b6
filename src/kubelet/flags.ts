/**
 * Parsing of the kubelet-style flags `k8ts agent` and `k8ts sim` share:
 * --node-labels k=v,k2=v2 and --register-with-taints k=v:Effect,k2:Effect.
 * Errors are thrown with the flag's name, as the CLI prints them.
 */
import { parseTaint, type Taint } from '../api/taints.js';
import { isQualifiedName, isValidLabelValue } from '../api/names.js';
import { nodeSysctlAllowlist, type SysctlAllowlist } from './sysctl.js';

export function parseLabelsFlag(flag: string, value: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    const val = eq < 0 ? '' : item.slice(eq + 1);
    const errs = [...isQualifiedName(key), ...isValidLabelValue(val)];
    if (errs.length) throw new Error(`invalid argument "${value}" for "--${flag}" flag: invalid label "${item}": ${errs.join('; ')}`);
    labels[key] = val;
  }
  return labels;
}

export function parseTaintsFlag(flag: string, value: string | undefined): Taint[] {
  const taints: Taint[] = [];
  for (const item of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const t = parseTaint(item);
    if ('error' in t) throw new Error(`invalid argument "${value}" for "--${flag}" flag: ${t.error}`);
    if (!t.effect) throw new Error(`invalid argument "${value}" for "--${flag}" flag: invalid taint spec: ${item}, missing effect`);
    taints.push(t);
  }
  return taints;
}

export function parseCountFlag(flag: string, value: string | undefined, min = 0): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min) throw new Error(`invalid argument "${value}" for "--${flag}" flag: must be an integer >= ${min}`);
  return n;
}

/**
 * --allowed-unsafe-sysctls a,b*: the node's sysctl allowlist, undefined when none is given (the safe
 * sysctls only). Throws the kubelet's start-up error for a pattern it would not allow.
 */
export function parseUnsafeSysctlsFlag(value: string | undefined): SysctlAllowlist | undefined {
  const patterns = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return patterns.length ? nodeSysctlAllowlist(patterns) : undefined;
}
