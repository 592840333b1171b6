/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages11, as
 * the pages give them:
 *  - Pod Scheduling Readiness: pods/pod-with-scheduling-gates.yaml and
 *    pods/pod-without-scheduling-gates.yaml;
 *  - Labels and Selectors: the label-demo Pod;
 *  - Using RBAC Authorization: the aggregated ClusterRoles (the
 *    "monitoring-endpointslices" one the monitoring ClusterRole selects, and
 *    "aggregate-cron-tabs-edit", which joins admin and edit);
 *  - Jobs: controllers/job.yaml's pi as the page's suspended myjob (the page
 *    elides its template), and Automatic Cleanup for Finished Jobs'
 *    controllers/job-with-ttl.yaml.
 * Using Source IP and Field Selectors give commands only.
 */

export const podWithSchedulingGates = `apiVersion: v1
kind: Pod
metadata:
  name: test-pod
spec:
  schedulingGates:
  - name: example.com/foo
  - name: example.com/bar
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.6
`;

export const podWithoutSchedulingGates = `apiVersion: v1
kind: Pod
metadata:
  name: test-pod
spec:
  containers:
  - name: pause
    image: registry.k8s.io/pause:3.6
`;

export const labelDemo = `apiVersion: v1
kind: Pod
metadata:
  name: label-demo
  labels:
    environment: production
    app: nginx
spec:
  containers:
  - name: nginx
    image: nginx:1.14.2
    ports:
    - containerPort: 80
`;

export const aggregatedClusterRoles = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: monitoring-endpointslices
  labels:
    rbac.example.com/aggregate-to-monitoring: "true"
# When you create the "monitoring-endpointslices" ClusterRole,
# the rules below will be added to the "monitoring" ClusterRole.
rules:
- apiGroups: [""]
  resources: ["services", "endpointslices", "pods"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: aggregate-cron-tabs-edit
  labels:
    # Add these permissions to the "admin" and "edit" default roles.
    rbac.authorization.k8s.io/aggregate-to-admin: "true"
    rbac.authorization.k8s.io/aggregate-to-edit: "true"
rules:
- apiGroups: ["stable.example.com"]
  resources: ["crontabs"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
`;

export const suspendedJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: myjob
spec:
  suspend: true
  parallelism: 1
  completions: 5
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
`;

export const jobWithTTL = `apiVersion: batch/v1
kind: Job
metadata:
  name: pi-with-ttl
spec:
  ttlSecondsAfterFinished: 100
  template:
    spec:
      containers:
      - name: pi
        image: perl:5.34.0
        command: ["perl",  "-Mbignum=bpi", "-wle", "print bpi(2000)"]
      restartPolicy: Never
`;
