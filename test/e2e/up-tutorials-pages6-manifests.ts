/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages6, as
 * the pages give them (content/en/examples of kubernetes/website) or, where a
 * page assumes "an application running on your cluster represented by a
 * StatefulSet", the StatefulSet Basics tutorial's web StatefulSet with the
 * label the Delete a StatefulSet page selects by (app.kubernetes.io/name=MyApp)
 * on the Service, the StatefulSet and its pods:
 *  - pods/topology-spread-constraints/{one-constraint,two-constraints,one-constraint-with-nodeaffinity}.yaml
 *    and the page's matchLabelKeys snippet in a Deployment;
 *  - pods/pod-with-toleration.yaml and the Taints and Tolerations page's
 *    toleration snippets in pods;
 *  - pods/security/security-context-{2,3,4}.yaml.
 */
import { statefulSetBasicsWeb } from './up-tutorials-pages3-manifests.js';

/**
 * The headless Service and StatefulSet the StatefulSet task pages act on: StatefulSet Basics' web.yaml
 * with the Delete a StatefulSet page's label, on the StatefulSet too (its `kubectl delete statefulset -l`).
 */
export const myAppWeb = (replicas: number) => statefulSetBasicsWeb(replicas)
  .replaceAll('app: nginx', 'app.kubernetes.io/name: MyApp')
  .replace('kind: StatefulSet\nmetadata:\n  name: web\n', 'kind: StatefulSet\nmetadata:\n  name: web\n  labels:\n    app.kubernetes.io/name: MyApp\n');

/**
 * Scale a StatefulSet's troubleshooting: a set whose pods are Ready while
 * /tmp/healthy exists (the liveness page's busybox idiom), so the reader can
 * make one unhealthy with `kubectl exec ... rm /tmp/healthy`.
 */
export const readinessSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ready
spec:
  serviceName: ready
  replicas: 3
  selector:
    matchLabels:
      app: ready
  template:
    metadata:
      labels:
        app: ready
    spec:
      containers:
      - name: busybox
        image: busybox:1.28
        args: ["/bin/sh", "-c", "touch /tmp/healthy; sleep 3600"]
        readinessProbe:
          exec:
            command: ["cat", "/tmp/healthy"]
          periodSeconds: 1
`;

const spreadConstraint = (key: string, when = 'DoNotSchedule') => `  - maxSkew: 1
    topologyKey: ${key}
    whenUnsatisfiable: ${when}
    labelSelector:
      matchLabels:
        foo: bar
`;

const pausePod = (constraints: string, affinity = '') => `kind: Pod
apiVersion: v1
metadata:
  name: mypod
  labels:
    foo: bar
spec:
  topologySpreadConstraints:
${constraints}${affinity}  containers:
  - name: pause
    image: registry.k8s.io/pause:3.1
`;

/** pods/topology-spread-constraints/one-constraint.yaml */
export const oneConstraint = pausePod(spreadConstraint('zone'));

/** pods/topology-spread-constraints/two-constraints.yaml */
export const twoConstraints = pausePod(spreadConstraint('zone') + spreadConstraint('node'));

/** two-constraints.yaml with the second constraint ScheduleAnyway (the page's way out of the conflict). */
export const twoConstraintsScheduleAnyway = pausePod(spreadConstraint('zone') + spreadConstraint('node', 'ScheduleAnyway'));

/** pods/topology-spread-constraints/one-constraint-with-nodeaffinity.yaml */
export const oneConstraintWithNodeAffinity = pausePod(spreadConstraint('zone'), `  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: zone
            operator: NotIn
            values:
            - zoneC
`);

/** The page's matchLabelKeys snippet (pod-template-hash) in a Deployment's template. */
export const matchLabelKeysDeployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: foo
spec:
  replicas: 4
  selector:
    matchLabels:
      app: foo
  template:
    metadata:
      labels:
        app: foo
    spec:
      topologySpreadConstraints:
          - maxSkew: 1
            topologyKey: kubernetes.io/hostname
            whenUnsatisfiable: DoNotSchedule
            labelSelector:
              matchLabels:
                app: foo
            matchLabelKeys:
              - pod-template-hash
      containers:
      - name: nginx
        image: ${image}
`;

/** minDomains 5 over the page's zones (fewer eligible domains: the global minimum is 0). */
export const minDomainsDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: min-domains
spec:
  replicas: 4
  selector:
    matchLabels:
      app: min-domains
  template:
    metadata:
      labels:
        app: min-domains
    spec:
      topologySpreadConstraints:
      - maxSkew: 1
        minDomains: 5
        topologyKey: zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector:
          matchLabels:
            app: min-domains
      containers:
      - name: pause
        image: registry.k8s.io/pause:3.1
`;

/** pods/pod-with-toleration.yaml */
export const podWithToleration = `apiVersion: v1
kind: Pod
metadata:
  name: nginx
  labels:
    env: test
spec:
  containers:
  - name: nginx
    image: nginx
    imagePullPolicy: IfNotPresent
  tolerations:
  - key: "example-key"
    operator: "Exists"
    effect: "NoSchedule"
`;

/** A pod on `node` with the page's tolerations snippet (`tolerations` indented as the page's YAML, two spaces in). */
export const podWithTolerations = (name: string, node: string, tolerations: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  nodeSelector:
    kubernetes.io/hostname: ${node}
  containers:
  - name: nginx
    image: nginx
${tolerations.replace(/^/gm, '  ')}`;

/** The page's two tolerations of key1=value1 (NoSchedule and NoExecute). */
export const twoTolerations = `tolerations:
- key: "key1"
  operator: "Equal"
  value: "value1"
  effect: "NoSchedule"
- key: "key1"
  operator: "Equal"
  value: "value1"
  effect: "NoExecute"
`;

/** The page's NoExecute toleration with tolerationSeconds: 3600. */
export const tolerationSeconds = `tolerations:
- key: "key1"
  operator: "Equal"
  value: "value1"
  effect: "NoExecute"
  tolerationSeconds: 3600
`;

/** pods/security/security-context-2.yaml: the container's runAsUser over the pod's. */
export const securityContext2 = `apiVersion: v1
kind: Pod
metadata:
  name: security-context-demo-2
spec:
  securityContext:
    runAsUser: 1000
  containers:
  - name: sec-ctx-demo-2
    image: gcr.io/google-samples/hello-app:2.0
    securityContext:
      runAsUser: 2000
      allowPrivilegeEscalation: false
`;

/** pods/security/security-context-3.yaml: no capabilities field. */
export const securityContext3 = `apiVersion: v1
kind: Pod
metadata:
  name: security-context-demo-3
spec:
  containers:
  - name: sec-ctx-3
    image: gcr.io/google-samples/hello-app:2.0
`;

/** pods/security/security-context-4.yaml: CAP_NET_ADMIN and CAP_SYS_TIME added. */
export const securityContext4 = `apiVersion: v1
kind: Pod
metadata:
  name: security-context-demo-4
spec:
  containers:
  - name: sec-ctx-4
    image: gcr.io/google-samples/hello-app:2.0
    securityContext:
      capabilities:
        add: ["NET_ADMIN", "SYS_TIME"]
`;

/** pods/security/security-context-5.yaml: agnhost, whose /etc/group puts its user 1000 in group 50000. */
export const securityContext5 = `apiVersion: v1
kind: Pod
metadata:
  name: security-context-demo
spec:
  securityContext:
    runAsUser: 1000
    runAsGroup: 3000
    supplementalGroups: [4000]
  containers:
  - name: sec-ctx-demo
    image: registry.k8s.io/e2e-test-images/agnhost:2.45
    command: [ "sh", "-c", "sleep 1h" ]
    securityContext:
      allowPrivilegeEscalation: false
`;
