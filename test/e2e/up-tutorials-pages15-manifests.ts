/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages15, as
 * the pages give them:
 *  - Debug Running Pods: application/nginx-with-request.yaml, and the
 *    custom profile's custom-profile.yaml;
 *  - Debug Pods: the page names a `mypod.yaml` with `command` misspelled
 *    `commnd` without giving its text, so the smallest pod with that field
 *    stands in for it.
 */

export const nginxWithRequest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
spec:
  selector:
    matchLabels:
      app: nginx
  replicas: 2
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
        resources:
          limits:
            memory: "128Mi"
            cpu: "500m"
        ports:
        - containerPort: 80
`;

export const customProfile = `env:
- name: ENV_VAR_1
  value: value_1
- name: ENV_VAR_2
  value: value_2
securityContext:
  capabilities:
    add:
    - NET_ADMIN
    - SYS_TIME

`;

export const mypodMisspelled = `apiVersion: v1
kind: Pod
metadata:
  name: mypod
spec:
  containers:
  - name: mypod
    image: busybox:1.28
    commnd: ["sleep", "3600"]
`;
