/**
 * Pod Security levels, versions and the namespace labels that choose them
 * (pod-security.kubernetes.io/enforce|audit|warn and their -version labels),
 * parsed as upstream's pod-security-admission api package does: an invalid
 * enforce level is an error (and fails closed as restricted), invalid audit
 * and warn levels fail open as privileged, and warn follows enforce when the
 * namespace sets a stricter enforce level and no warn level.
 */
import type { FieldError } from '../../../api/field-errors.js';

export type Level = 'privileged' | 'baseline' | 'restricted';
const levels: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A minor version of 1.x, or `latest` (Infinity). */
export type Version = number;
export const latest: Version = Infinity;
/** The newest policy version k8ts knows: the Kubernetes version it serves (1.32). */
export const maxKnownVersion = 32;

export interface LevelVersion { level: Level; version: Version }
export interface Policy { enforce: LevelVersion; audit: LevelVersion; warn: LevelVersion }

export const labelPrefix = 'pod-security.kubernetes.io/';
const enforceLevelLabel = `${labelPrefix}enforce`;
const enforceVersionLabel = `${labelPrefix}enforce-version`;
const auditLevelLabel = `${labelPrefix}audit`;
const auditVersionLabel = `${labelPrefix}audit-version`;
const warnLevelLabel = `${labelPrefix}warn`;
const warnVersionLabel = `${labelPrefix}warn-version`;

/** Upstream's default AdmissionConfiguration: everything privileged at latest. */
export const defaultPolicy: Policy = {
  enforce: { level: 'privileged', version: latest },
  audit: { level: 'privileged', version: latest },
  warn: { level: 'privileged', version: latest },
};

export const levelVersionString = (lv: LevelVersion) => `${lv.level}:${lv.version === latest ? 'latest' : `v1.${lv.version}`}`;

export const sameLevelVersion = (a: LevelVersion, b: LevelVersion) => a.level === b.level && a.version === b.version;

export function compareLevels(a: Level, b: Level): number {
  return levels.indexOf(a) - levels.indexOf(b);
}

function parseLevel(value: string): Level | undefined {
  return (levels as readonly string[]).includes(value) ? value as Level : undefined;
}

function parseVersion(value: string): Version | undefined {
  if (value === 'latest') return latest;
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(value);
  return m ? Number(m[1]) : undefined;
}

export const fullyPrivileged = (p: Policy) => p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';

/** The policy a namespace's labels select, and the label errors (upstream's PolicyToEvaluate). */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy = defaultPolicy): { policy: Policy; errors: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: FieldError[] = [];
  if (!labels) return { policy: p, errors };
  const invalid = (label: string, value: string, detail: string) =>
    errors.push({ type: 'FieldValueInvalid', field: `metadata.labels[${label}]`, value, detail });
  const levelDetail = `must be one of ${levels.join(', ')}`;
  const versionDetail = 'must be "latest" or "v1.x"';
  let hasEnforceLevel = false;
  let hasWarnLevel = false;
  let hasWarnVersion = false;
  const version = (label: string): Version | undefined => {
    const v = labels[label];
    if (v === undefined) return undefined;
    const parsed = parseVersion(v);
    if (parsed === undefined) invalid(label, v, versionDetail);
    return parsed ?? latest;
  };
  if (labels[enforceLevelLabel] !== undefined) {
    const level = parseLevel(labels[enforceLevelLabel]);
    if (!level) invalid(enforceLevelLabel, labels[enforceLevelLabel], levelDetail);
    p.enforce.level = level ?? 'restricted';
    hasEnforceLevel = !!level;
  }
  p.enforce.version = version(enforceVersionLabel) ?? p.enforce.version;
  if (labels[auditLevelLabel] !== undefined) {
    const level = parseLevel(labels[auditLevelLabel]);
    if (!level) invalid(auditLevelLabel, labels[auditLevelLabel], levelDetail);
    p.audit.level = level ?? 'privileged';
  }
  p.audit.version = version(auditVersionLabel) ?? p.audit.version;
  if (labels[warnLevelLabel] !== undefined) {
    hasWarnLevel = true;
    const level = parseLevel(labels[warnLevelLabel]);
    if (!level) invalid(warnLevelLabel, labels[warnLevelLabel], levelDetail);
    p.warn.level = level ?? 'privileged';
  }
  if (labels[warnVersionLabel] !== undefined) hasWarnVersion = true;
  p.warn.version = version(warnVersionLabel) ?? p.warn.version;
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!hasWarnVersion) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}
