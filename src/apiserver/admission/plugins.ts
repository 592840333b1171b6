/**
 * kube-apiserver's --enable-admission-plugins / --disable-admission-plugins:
 * upstream's plugin names (pkg/kubeapiserver/options/plugins.go,
 * AllOrderedPlugins of 1.32), which are on by default (its
 * DefaultOffAdmissionPlugins complement, plus NodeRestriction, which
 * kubeadm enables), and the refusals of unknown or overlapping names in
 * upstream's words (apiserver/pkg/server/options/admission.go). k8ts maps
 * the names onto its admission steps (`k8tsSteps`); the others are
 * accepted and have no step here (docs/api.md lists them).
 */
export const allAdmissionPlugins = [
  'AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists', 'LimitPodHardAntiAffinityTopology', 'LimitRanger',
  'ServiceAccount', 'NodeRestriction', 'TaintNodesByCondition', 'AlwaysPullImages', 'ImagePolicyWebhook', 'PodSecurity', 'PodNodeSelector',
  'Priority', 'DefaultTolerationSeconds', 'PodTolerationRestriction', 'EventRateLimit', 'ExtendedResourceToleration', 'DefaultStorageClass',
  'StorageObjectInUseProtection', 'OwnerReferencesPermissionEnforcement', 'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval',
  'CertificateSigning', 'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass', 'DenyServiceExternalIPs',
  'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny',
] as const;

export type AdmissionPluginName = typeof allAdmissionPlugins[number];

const defaultOff = new Set<string>([
  'AlwaysAdmit', 'AlwaysPullImages', 'LimitPodHardAntiAffinityTopology', 'NamespaceAutoProvision', 'NamespaceExists', 'PodNodeSelector',
  'PodTolerationRestriction', 'EventRateLimit', 'ExtendedResourceToleration', 'OwnerReferencesPermissionEnforcement', 'ImagePolicyWebhook',
  'DenyServiceExternalIPs', 'MutatingAdmissionPolicy', 'AlwaysDeny',
]);

/** The k8ts admission steps a name turns on or off. */
export const k8tsSteps: Partial<Record<AdmissionPluginName, string>> = {
  NamespaceLifecycle: 'no content in absent or terminating namespaces; default, kube-system, kube-public kept',
  LimitRanger: 'LimitRange defaults and limits',
  ServiceAccount: "spec.serviceAccountName 'default', the account's existence, the token volume, imagePullSecrets",
  NodeRestriction: 'kubelets write only their Node and its pods',
  Priority: 'spec.priority from PriorityClasses',
  DefaultTolerationSeconds: 'not-ready/unreachable NoExecute tolerations of 300 s',
  PodSecurity: 'Pod Security Standards from the namespace labels pod-security.kubernetes.io/enforce|warn (audit: no audit log)',
  DefaultStorageClass: 'storageClassName of new PVCs',
  RuntimeClass: "a pod's RuntimeClass: its existence, spec.overhead, its nodeSelector and tolerations",
  DefaultIngressClass: 'ingressClassName of new Ingresses',
  StorageObjectInUseProtection: 'the kubernetes.io/pvc-protection and kubernetes.io/pv-protection finalizers on new PVCs and PVs',
  CertificateSubjectRestriction: 'the CSR requester fields; no kube-apiserver-client CSR for system:masters',
  ValidatingAdmissionPolicy: 'ValidatingAdmissionPolicies and their bindings',
  MutatingAdmissionWebhook: 'MutatingWebhookConfigurations called',
  ValidatingAdmissionWebhook: 'ValidatingWebhookConfigurations called',
  ResourceQuota: 'ResourceQuota checks and charges',
};

/**
 * The enabled plugins for the two flags' values (comma-separated lists);
 * throws with upstream's message when a name is unknown or in both lists.
 */
export function enabledAdmissionPlugins(enable: string[], disable: string[]): Set<AdmissionPluginName> {
  const known = new Set<string>(allAdmissionPlugins);
  const errs: string[] = [];
  for (const n of enable) if (!known.has(n)) errs.push(`enable-admission-plugins plugin "${n}" is unknown`);
  for (const n of disable) if (!known.has(n)) errs.push(`disable-admission-plugins plugin "${n}" is unknown`);
  const both = [...new Set(enable.filter((n) => disable.includes(n)))].sort();
  if (both.length) errs.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  // utilerrors.NewAggregate: one error as itself, several as [a, b].
  if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  const on = new Set<AdmissionPluginName>(allAdmissionPlugins.filter((n) => !defaultOff.has(n) && !disable.includes(n)));
  for (const n of enable) on.add(n as AdmissionPluginName);
  return on;
}

/** A flag's comma-separated list (empty entries dropped, as pflag's StringSlice keeps none of ""). */
export const pluginList = (v: string | undefined): string[] => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
