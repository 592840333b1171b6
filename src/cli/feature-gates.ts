/**
 * kube-apiserver's --feature-gates, for the gates k8ts acts on: a comma-separated
 * list of NAME=BOOL, read as component-base's featuregate.Set does, errors in
 * its words (flag parsing wraps them in `invalid argument ... for
 * "--feature-gates" flag: `). Only APIServerIdentity is known: a gate k8ts does
 * not implement is refused as upstream refuses one it does not know, rather than
 * silently accepted.
 */
export interface FeatureGates {
  /** APIServerIdentity (beta, on by default since 1.26): each server keeps its identity Lease in kube-system. */
  APIServerIdentity: boolean;
}

export const defaultFeatureGates: FeatureGates = { APIServerIdentity: true };

/** The gates of `--feature-gates TEXT` over the defaults; throws upstream's message for a bad entry. */
export function parseFeatureGates(text: string): FeatureGates {
  const gates = { ...defaultFeatureGates };
  for (const entry of text.split(',')) {
    const s = entry.trim();
    if (s === '') continue;
    const [k, v] = s.split('=', 2).map((p) => p.trim()) as [string, string | undefined];
    if (v === undefined) throw new Error(`missing bool value for ${k}`);
    const b = /^(1|t|T|TRUE|true|True)$/.test(v) ? true : /^(0|f|F|FALSE|false|False)$/.test(v) ? false : undefined;
    if (b === undefined) throw new Error(`invalid value of ${k}=${v}, err: strconv.ParseBool: parsing "${v}": invalid syntax`);
    if (!(k in gates)) throw new Error(`unrecognized feature gate: ${k}`);
    gates[k as keyof FeatureGates] = b;
  }
  return gates;
}
