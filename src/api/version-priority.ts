/**
 * Upstream's kube-aware version order (apimachinery's
 * version.CompareKubeAwareVersionStrings), which discovery uses to order a
 * custom resource group's versions and to pick its preferred version (the
 * first): versions of the form vMAJOR[(alpha|beta)MINOR] come first, GA before
 * beta before alpha, a higher major first, then a higher minor; every other
 * version after them, in alphabetical order. So v1 > v1beta2 > v1beta1 >
 * v1alpha1, and v2 > v1, whatever order the CRD lists them in.
 */
const kubeLike = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const stability: Record<string, number> = { alpha: 0, beta: 1, '': 2 };

interface Parsed { major: number; stability: number; minor: number }

function parse(v: string): Parsed | undefined {
  const m = kubeLike.exec(v);
  if (!m) return undefined;
  return { major: Number(m[1]), stability: stability[m[2] ?? ''], minor: Number(m[3] ?? 0) };
}

/** Negative when `a` has the higher priority (sorts first), as a comparator for Array.sort. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    if (pa.stability !== pb.stability) return pb.stability - pa.stability;
    if (pa.major !== pb.major) return pb.major - pa.major;
    return pb.minor - pa.minor;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
