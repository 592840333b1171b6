/** The Kubernetes release k8ts serves and speaks as (/version, the kubelet's nodeInfo, its clients' User-Agent). */
export const kubernetesVersion = 'v1.32.0';
