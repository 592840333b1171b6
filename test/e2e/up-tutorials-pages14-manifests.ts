/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages14, as
 * the pages give them:
 *  - Managing Workloads (concepts/workloads/management): application/nginx-app.yaml
 *    and application/nginx/nginx-deployment.yaml; the page names the files of
 *    its `project/k8s/development` tree (my-configmap.yaml, my-deployment.yaml,
 *    my-pvc.yaml) and the objects they create without giving their text, so
 *    the smallest objects of those names stand in for them;
 *  - Limit Storage Consumption: the storagelimits LimitRange and the
 *    storagequota ResourceQuota;
 *  - Building a Basic DaemonSet: application/basic-daemonset.yaml;
 *  - Logging Architecture: admin/logging/two-files-counter-pod-streaming-sidecar.yaml
 *    (its sidecars' `tail -n+1 -F`; the file's history has `-f` too, which
 *    k8ts runs alike once count has written the file).
 */

export const nginxApp = `apiVersion: v1
kind: Service
metadata:
  name: my-nginx-svc
  labels:
    app: nginx
spec:
  type: LoadBalancer
  ports:
  - port: 80
  selector:
    app: nginx
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-nginx
  labels:
    app: nginx
spec:
  replicas: 3
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
        image: nginx:1.14.2
        ports:
        - containerPort: 80
`;

export const nginxDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-nginx
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: nginx
  replicas: 3
  template:
    metadata:
      labels:
        app.kubernetes.io/name: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
`;

/** Not on the page: the objects its recursive example prints, the smallest of their kinds. */
export const developmentTree = {
  'namespaces/namespaces.yaml': `apiVersion: v1
kind: Namespace
metadata:
  name: development
---
apiVersion: v1
kind: Namespace
metadata:
  name: staging
`,
  'development/configmap/my-configmap.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: my-config
data:
  environment: development
`,
  'development/deployment/my-deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
spec:
  selector:
    matchLabels:
      app: my-deployment
  template:
    metadata:
      labels:
        app: my-deployment
    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
`,
  'development/pvc/my-pvc.yaml': `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: my-pvc
spec:
  accessModes:
  - ReadWriteOnce
  resources:
    requests:
      storage: 1Gi
`,
};

export const storageLimits = `apiVersion: v1
kind: LimitRange
metadata:
  name: storagelimits
spec:
  limits:
  - type: PersistentVolumeClaim
    max:
      storage: 2Gi
    min:
      storage: 1Gi
`;

export const storageQuota = `apiVersion: v1
kind: ResourceQuota
metadata:
  name: storagequota
spec:
  hard:
    persistentvolumeclaims: "5"
    requests.storage: "5Gi"
`;

/** Not on the page: a claim of SIZE, to meet the limits and the quota above. */
export const claim = (name: string, size: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes:
  - ReadWriteOnce
  resources:
    requests:
      storage: ${size}
`;

export const countersStreamingSidecar = `apiVersion: v1
kind: Pod
metadata:
  name: counter
spec:
  containers:
  - name: count
    image: busybox:1.28
    args:
    - /bin/sh
    - -c
    - >
      i=0;
      while true;
      do
        echo "$i: $(date)" >> /var/log/1.log;
        echo "$(date) INFO $i" >> /var/log/2.log;
        i=$((i+1));
        sleep 1;
      done
    volumeMounts:
    - name: varlog
      mountPath: /var/log
  - name: count-log-1
    image: busybox:1.28
    args: [/bin/sh, -c, 'tail -n+1 -F /var/log/1.log']
    volumeMounts:
    - name: varlog
      mountPath: /var/log
  - name: count-log-2
    image: busybox:1.28
    args: [/bin/sh, -c, 'tail -n+1 -F /var/log/2.log']
    volumeMounts:
    - name: varlog
      mountPath: /var/log
  volumes:
  - name: varlog
    emptyDir: {}
`;

export const basicDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: example-daemonset
spec:
  selector:
    matchLabels:
      app.kubernetes.io/name: example
  template:
    metadata:
      labels:
        app.kubernetes.io/name: example
    spec:
      containers:
      - name: pause
        image: registry.k8s.io/pause
      initContainers:
      - name: log-machine-id
        image: busybox:1.37
        command: ['sh', '-c', 'cat /etc/machine-id > /var/log/machine-id.log']
        volumeMounts:
        - name: machine-id
          mountPath: /etc/machine-id
          readOnly: true
        - name: log-dir
          mountPath: /var/log
      volumes:
      - name: machine-id
        hostPath:
          path: /etc/machine-id
          type: File
      - name: log-dir
        hostPath:
          path: /var/log
`;
