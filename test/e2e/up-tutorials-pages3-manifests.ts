/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages3, as
 * the pages give them (content/en/examples of kubernetes/website, and the
 * files the pages ask the reader to write): controllers/job-success-policy.yaml,
 * controllers/nginx-deployment.yaml, the Secret pages' secret.yaml and
 * kustomization.yaml, pods/pod-projected-svc-token.yaml,
 * pods/storage/projected.yaml, and StatefulSet Basics' web.yaml (three replicas,
 * as its update section runs it).
 */

import { nginxDeployment } from './up-tutorials-pages2-manifests.js';

/** controllers/nginx-deployment.yaml: application/deployment.yaml with the Deployment labelled app: nginx and 3 replicas. */
export const controllersNginxDeployment = nginxDeployment
  .replace('  name: nginx-deployment\n', '  name: nginx-deployment\n  labels:\n    app: nginx\n')
  .replace('  replicas: 2 # tells deployment to run 2 pods matching the template\n', '  replicas: 3\n');

export const jobSuccessPolicy = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-success
spec:
  parallelism: 10
  completions: 10
  completionMode: Indexed # Required for the success policy
  successPolicy:
    rules:
      - succeededIndexes: 0,2-3
        succeededCount: 1
  template:
    spec:
      containers:
      - name: main
        image: python
        command:          # Provided that at least one of the Pods with 0, 2, and 3 indexes has succeeded,
                          # the overall Job is a success.
          - python3
          - -c
          - |
            import os, sys
            if os.environ.get("JOB_COMPLETION_INDEX") == "2":
              sys.exit(0)
            else:
              sys.exit(1)
      restartPolicy: Never
`;

/** Using Finalizers to Control Deletion: a ConfigMap held by a finalizer of the reader's. */
export const finalizedConfigMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: mymap
  finalizers:
  - kubernetes
`;

export const parentConfigMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: mymap-parent
`;

export const childConfigMap = (uid: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: mymap-child
  ownerReferences:
  - apiVersion: v1
    kind: ConfigMap
    name: mymap-parent
    uid: ${uid}
`;

/** Managing Secrets using Configuration File: stringData wins over data for the same key. */
export const secretDataAndStringData = `apiVersion: v1
kind: Secret
metadata:
  name: mysecret
type: Opaque
data:
  username: YWRtaW4=
stringData:
  username: administrator
`;

export const secretStringData = `apiVersion: v1
kind: Secret
metadata:
  name: mysecret
type: Opaque
stringData:
  config.yaml: |
    apiUrl: "https://my.api.com/api/v1"
    username: <user>
    password: <password>
`;

/** Managing Secrets using Kustomize. */
export const kustomization = `secretGenerator:
- name: database-creds
  files:
  - username.txt
  - password.txt
`;

export const kustomizationLiterals = `secretGenerator:
- name: database-creds
  literals:
  - username=admin
  - password=1f2d1e2e67df
`;

export const buildRobot = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: build-robot
`;

export const buildRobotSecret = `apiVersion: v1
kind: Secret
metadata:
  name: build-robot-secret
  annotations:
    kubernetes.io/service-account.name: build-robot
type: kubernetes.io/service-account-token
`;

export const noAutomountServiceAccount = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: build-robot
automountServiceAccountToken: false
`;

export const podProjectedSvcToken = `apiVersion: v1
kind: Pod
metadata:
  name: nginx
spec:
  containers:
  - image: nginx
    name: nginx
    volumeMounts:
    - mountPath: /var/run/secrets/tokens
      name: vault-token
  serviceAccountName: build-robot
  volumes:
  - name: vault-token
    projected:
      sources:
      - serviceAccountToken:
          path: vault-token
          expirationSeconds: 7200
          audience: vault
`;

/** Access Clusters Using the Kubernetes API: a token for the default ServiceAccount. */
export const defaultTokenSecret = `apiVersion: v1
kind: Secret
metadata:
  name: default-token
  annotations:
    kubernetes.io/service-account.name: default
type: kubernetes.io/service-account-token
`;

/** StatefulSet Basics' web.yaml (its headless Service and StatefulSet): 2 replicas as the tutorial starts, 3 in its update section. */
export const statefulSetBasicsWeb = (replicas: number) => `apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  ports:
  - port: 80
    name: web
  clusterIP: None
  selector:
    app: nginx
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: "nginx"
  replicas: ${replicas}
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.24
        ports:
        - containerPort: 80
          name: web
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ "ReadWriteOnce" ]
      resources:
        requests:
          storage: 1Gi
`;
