/**
 * The Kubernetes 1.32 feature gates whose behaviour k8ts shows, with 1.32's
 * stage and default, as component-base's `kubernetes_feature_enabled` gauge
 * reports them on every component's /metrics (kube-apiserver's and the
 * kubelet's): one sample `{name="NAME",stage="STAGE"}` a gate, 1 when on.
 * The Adopting Sidecar Containers page checks its gate so:
 * `kubectl get --raw /metrics | grep kubernetes_feature_enabled | grep SidecarContainers`.
 *
 * Only gates k8ts acts as upstream on are listed (a gate named here promises
 * its behaviour); the off ones are those whose fields k8ts drops as 1.32 does
 * (disabled-fields.ts). GA gates have the empty stage, as upstream prints them.
 */
export type FeatureStage = 'ALPHA' | 'BETA' | '' | 'DEPRECATED';

export interface FeatureGate {
  name: string;
  stage: FeatureStage;
  enabled: boolean;
}

/** 1.32's defaults (pkg/features/kube_features.go, versioned specs), by name. */
export const kubeFeatureGates: readonly FeatureGate[] = [
  { name: 'APIServerIdentity', stage: 'BETA', enabled: true },
  { name: 'InPlacePodVerticalScaling', stage: 'ALPHA', enabled: false },
  { name: 'JobBackoffLimitPerIndex', stage: 'BETA', enabled: true },
  { name: 'JobPodReplacementPolicy', stage: 'BETA', enabled: true },
  { name: 'JobSuccessPolicy', stage: 'BETA', enabled: true },
  { name: 'MatchLabelKeysInPodTopologySpread', stage: 'BETA', enabled: true },
  { name: 'PodSchedulingReadiness', stage: '', enabled: true },
  { name: 'SidecarContainers', stage: 'BETA', enabled: true },
];

/** The gates with `overrides` (a component's --feature-gates) applied, in name order as upstream's gauge lists them. */
export function featureGates(overrides: Readonly<Record<string, boolean>> = {}): FeatureGate[] {
  return kubeFeatureGates.map((g) => ({ ...g, enabled: overrides[g.name] ?? g.enabled }));
}

/** The gauge's HELP text, with its stability level first as component-base writes it. */
export const featureEnabledHelp = '[BETA] This metric records the data about the stage and enablement of a k8s feature.';
