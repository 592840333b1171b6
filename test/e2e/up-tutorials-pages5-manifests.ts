/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages5, as
 * the pages give them (content/en/examples of kubernetes/website, and the
 * files the pages ask the reader to write): policy/zookeeper-pod-disruption-budget-*.yaml,
 * controllers/job-pod-failure-policy-{failjob,ignore,config-issue}.yaml,
 * controllers/job-backoff-limit-per-index-{failindex,example}.yaml, the
 * PriorityClass and pod of Pod Priority and Preemption, the Determine the
 * Reason for Pod Failure pod with FallbackToLogsOnError, an init container
 * script with `set -x` (Debug Init Containers) and the kustomize page's base
 * and dev overlay. The zookeeper StatefulSet stands for the one the PDB page
 * protects (its ZooKeeper tutorial's, three replicas labelled app: zookeeper).
 */

export const pdbMinAvailable = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: zk-pdb
spec:
  minAvailable: 2
  selector:
    matchLabels:
      app: zookeeper
`;

export const zookeeper = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: zk
spec:
  serviceName: zk-hs
  replicas: 3
  selector:
    matchLabels:
      app: zookeeper
  template:
    metadata:
      labels:
        app: zookeeper
    spec:
      containers:
      - name: kubernetes-zookeeper
        image: registry.k8s.io/kubernetes-zookeeper:1.0-3.4.10
        ports:
        - containerPort: 2181
          name: client
`;

export const failJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-pod-failure-policy-failjob
spec:
  completions: 8
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
        command: ["bash"]
        args:
        - -c
        - echo "Hello world! I'm going to exit with 42 to simulate a software bug." && sleep 30 && exit 42
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
`;

export const ignoreJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-pod-failure-policy-ignore
spec:
  completions: 4
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/bash:5
        command: ["bash"]
        args:
        - -c
        - echo "Hello world! I'm going to exit with 0 (success)." && sleep 90 && exit 0
  backoffLimit: 0
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions:
      - type: DisruptionTarget
        status: "True"
`;

export const configIssueJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-pod-failure-policy-config-issue
spec:
  completions: 8
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: "non-existing-repo/non-existing-image:example"
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailJob
      onPodConditions:
      - type: ConfigIssue
        status: "True"
`;

export const failIndexJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-backoff-limit-per-index-failindex
spec:
  completions: 4
  parallelism: 2
  completionMode: Indexed
  backoffLimitPerIndex: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: docker.io/library/python:3
        command:
          - python3
          - -c
          - |
            import os, sys
            index = int(os.environ.get("JOB_COMPLETION_INDEX"))
            if index == 0:
              sys.exit(1)
            elif index == 1:
              sys.exit(42)
            else:
              sys.exit(0)
  backoffLimit: 6
  podFailurePolicy:
    rules:
    - action: FailIndex
      onExitCodes:
        containerName: main
        operator: In
        values: [42]
`;

export const backoffPerIndexJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-backoff-limit-per-index-example
spec:
  completions: 10
  parallelism: 3
  completionMode: Indexed  # required for the feature
  backoffLimitPerIndex: 1  # maximal number of failures per index
  maxFailedIndexes: 5      # maximal number of failed indexes before terminating the Job execution
  template:
    spec:
      restartPolicy: Never # required for the feature
      containers:
      - name: example
        image: python
        command:
        - python3
        - -c
        - |
          import os, sys
          print("Hello world")
          if int(os.environ.get("JOB_COMPLETION_INDEX")) % 2 == 0:
            sys.exit(1)
`;

export const priorityClasses = `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority
value: 1000000
globalDefault: false
description: "This priority class should be used for XYZ service pods only."
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority-nonpreempting
value: 1000000
preemptionPolicy: Never
globalDefault: false
description: "This priority class will not cause other pods to be preempted."
---
apiVersion: v1
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
  priorityClassName: high-priority
`;

export const fallbackTermination = `apiVersion: v1
kind: Pod
metadata:
  name: termination-demo
spec:
  containers:
  - name: termination-demo-container
    image: debian
    command: ["/bin/sh"]
    args: ["-c", "echo 'Sleep expired, writing to log only'; exit 1"]
    terminationMessagePolicy: FallbackToLogsOnError
  restartPolicy: Never
`;

export const initDebug = `apiVersion: v1
kind: Pod
metadata:
  name: myapp-pod
spec:
  initContainers:
  - name: init-first
    image: busybox:1.28
    command: ['sh', '-c', 'echo first done; sleep 3']
  - name: init-second
    image: busybox:1.28
    command: ['sh', '-c', 'set -x; echo checking the database; test -f /ready']
  containers:
  - name: myapp-container
    image: busybox:1.28
    command: ['sh', '-c', 'echo The app is running! && sleep 3600']
`;

/** The maxUnavailable form of the PDB page's zk-pdb, named apart so both can exist (the eviction API's 500). */
export const pdbMaxUnavailable = `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: zk-pdb-max
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      app: zookeeper
`;

/** API-initiated Eviction's eviction.json, for pod `name`. */
export const eviction = (name: string) => `{
  "apiVersion": "policy/v1",
  "kind": "Eviction",
  "metadata": {
    "name": "${name}",
    "namespace": "default"
  }
}
`;

/** The Pod failure policy page's patch.yaml (the ConfigIssue condition). */
export const configIssuePatch = (now: string) => `status:
  conditions:
  - type: ConfigIssue
    status: "True"
    reason: "NonExistingImage"
    lastTransitionTime: "${now}"
`;

/** Declarative Management of Kubernetes Objects Using Kustomize: a base (Deployment and Service) and a dev overlay. */
export const kustomizeBase = {
  'deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-nginx
spec:
  selector:
    matchLabels:
      run: my-nginx
  replicas: 2
  template:
    metadata:
      labels:
        run: my-nginx
    spec:
      containers:
      - name: my-nginx
        image: nginx
`,
  'service.yaml': `apiVersion: v1
kind: Service
metadata:
  name: my-nginx
  labels:
    run: my-nginx
spec:
  ports:
  - port: 80
    protocol: TCP
  selector:
    run: my-nginx
`,
  'kustomization.yaml': `resources:
- deployment.yaml
- service.yaml
`,
};

export const kustomizeDev = `resources:
- ../base
namePrefix: dev-
commonLabels:
  app: my-nginx
configMapGenerator:
- name: example-configmap-1
  literals:
  - FOO=Bar
`;
