/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages16, as
 * the pages give them:
 *  - Change the Access Mode of a PersistentVolume to ReadWriteOncePod:
 *    cat-pictures-pvc.yaml and cat-pictures-writer-deployment.yaml, and the
 *    claim as the page says to edit it (ReadWriteOncePod its only access
 *    mode, spec.volumeName the volume's name) in `catPicturesPvcRwop`;
 *  - Running Pods on Only Some Nodes: controllers/daemonset-label-selector.yaml;
 *  - Imperative Management of Kubernetes Objects Using Configuration Files:
 *    the page names `<filename|url>` only, so application/deployment.yaml
 *    (the Deployments page's nginx-deployment) stands in for it;
 *  - Configure Multiple Schedulers: admin/sched/pod1.yaml, pod2.yaml and
 *    pod3.yaml (the last for a second scheduler that is not running);
 *  - Using sysctls in a Kubernetes Cluster: its sysctl-example pod (below);
 *  - Versions in CustomResourceDefinitions: the deprecation example (below).
 */

export const catPicturesPvc = `kind: PersistentVolumeClaim
apiVersion: v1
metadata:
  name: cat-pictures-pvc
spec:
  accessModes:
  - ReadWriteOnce
  resources:
    requests:
      storage: 1Gi
`;

export const catPicturesPvcRwop = (volumeName: string) => `kind: PersistentVolumeClaim
apiVersion: v1
metadata:
  name: cat-pictures-pvc
spec:
  accessModes:
  - ReadWriteOncePod
  volumeName: ${volumeName}
  resources:
    requests:
      storage: 1Gi
`;

export const catPicturesWriter = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: cat-pictures-writer
spec:
  replicas: 3
  selector:
    matchLabels:
      app: cat-pictures-writer
  template:
    metadata:
      labels:
        app: cat-pictures-writer
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
        volumeMounts:
        - name: cat-pictures
          mountPath: /mnt
      volumes:
      - name: cat-pictures
        persistentVolumeClaim:
          claimName: cat-pictures-pvc
          readOnly: false
`;

export const daemonsetLabelSelector = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nginx-ssd
  labels:
    app: nginx
spec:
  selector:
    matchLabels:
      app: web-server
  template:
    metadata:
      labels:
        app: web-server
    spec:
      nodeSelector:
        ssd: "true"
      containers:
        - name: nginx
          image: nginx:latest`;

/** application/deployment.yaml, as up-tutorials-pages2 walks it. */
export { nginxDeployment } from './up-tutorials-pages2-manifests.js';

const schedPod = (name: string, scheduler: string, container: string) => `---
{
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "${name}",
    labels: {
      name: "multischeduler-example",
    },
  },
  spec: {${scheduler ? `
    schedulerName: "${scheduler}",` : ''}
    containers: [{
      name: "${container}",
      image: "registry.k8s.io/pause:3.8",
    }],
  },
}
`;

/** admin/sched/pod1.yaml, pod2.yaml and pod3.yaml: no scheduler named, the default one, the second one. */
export const pod1 = schedPod('no-annotation', '', 'pod-with-no-annotation-container');
export const pod2 = schedPod('annotation-default-scheduler', 'default-scheduler', 'pod-with-default-annotation-container');
export const pod3 = schedPod('annotation-second-scheduler', 'my-scheduler', 'pod-with-second-annotation-container');

/**
 * Using sysctls in a Kubernetes Cluster: the page's pod sets one safe and two
 * unsafe sysctls and elides the rest of its spec (`...`); a busybox container
 * stands in for it. `sysctlSafe` sets safe ones only.
 */
export const sysctlExample = `apiVersion: v1
kind: Pod
metadata:
  name: sysctl-example
spec:
  securityContext:
    sysctls:
    - name: kernel.shm_rmid_forced
      value: "0"
    - name: net.core.somaxconn
      value: "1024"
    - name: kernel.msgmax
      value: "65536"
  containers:
  - name: sysctl-example
    image: busybox:1.28
    command: ["sleep", "3600"]
`;

export const sysctlSafe = sysctlExample.replace('name: sysctl-example\nspec', 'name: sysctl-safe\nspec')
  .replace(/ {4}- name: net\.core\.somaxconn\n {6}value: "1024"\n {4}- name: kernel\.msgmax\n {6}value: "65536"\n/, '    - name: net.ipv4.ip_local_port_range\n      value: "32768 60999"\n');

const crontabSchema = `    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              host:
                type: string
              port:
                type: string
`;

/**
 * Versions in CustomResourceDefinitions, Version deprecation: the page's CRD
 * with its comments; the page elides each version's schema (`schema: ...`),
 * so the host and port CronTab schema of its other examples fills them.
 */
export const crontabsDeprecated = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.example.com
spec:
  group: example.com
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: false
    # This indicates the v1alpha1 version of the custom resource is deprecated.
    # API requests to this version receive a warning header in the server response.
    deprecated: true
    # This overrides the default warning returned to API clients making v1alpha1 API requests.
    deprecationWarning: "example.com/v1alpha1 CronTab is deprecated; see http://example.com/v1alpha1-v1 for instructions to migrate to example.com/v1 CronTab"
${crontabSchema}  - name: v1beta1
    served: true
    # This indicates the v1beta1 version of the custom resource is deprecated.
    # API requests to this version receive a warning header in the server response.
    # A default warning message is returned for this version.
    deprecated: true
    storage: false
${crontabSchema}  - name: v1
    served: true
    storage: true
${crontabSchema}`;

export const crontabV1alpha1 = `apiVersion: example.com/v1alpha1
kind: CronTab
metadata:
  name: my-new-cron-object
spec:
  host: localhost
  port: "8080"
`;

/** Assign Pod-level CPU and Memory Resources: the page's pod-resources-demo. */
export const podLevelResources = `apiVersion: v1
kind: Pod
metadata:
  name: pod-resources-demo
  namespace: pod-resources-example
spec:
  resources:
    limits:
      cpu: "1"
      memory: "200Mi"
    requests:
      cpu: "1"
      memory: "100Mi"
  containers:
  - name: pod-resources-demo-ctr-1
    image: nginx
    resources:
      limits:
        cpu: "0.5"
        memory: "100Mi"
      requests:
        cpu: "0.5"
        memory: "50Mi"
  - name: pod-resources-demo-ctr-2
    image: fedora
    command:
    - sleep
    - inf
`;

/** Use an Image Volume with a Pod: the page's image-volumes.yaml. */
export const imageVolumePod = `apiVersion: v1
kind: Pod
metadata:
  name: image-volume
spec:
  containers:
  - name: shell
    command: ["sleep", "infinity"]
    image: debian
    volumeMounts:
    - name: volume
      mountPath: /volume
  volumes:
  - name: volume
    image:
      reference: quay.io/crio/artifact:v1
      pullPolicy: IfNotPresent
`;
