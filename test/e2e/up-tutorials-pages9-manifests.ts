/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages9, as
 * the pages give them (content/en/examples of kubernetes/website):
 *  - pods/user-namespaces-stateless.yaml of "Use a User Namespace With a Pod";
 *  - pods/private-reg-pod.yaml of "Pull an Image from a Private Registry";
 *  - application/job/redis/redis-pod.yaml and redis-service.yaml of "Fine
 *    Parallel Processing Using a Work Queue";
 *  - service/access/hello-application.yaml of "Use a Service to Access an
 *    Application in a Cluster".
 */

export const usernsPod = `apiVersion: v1
kind: Pod
metadata:
  name: userns
spec:
  hostUsers: false
  containers:
  - name: shell
    command: ["sleep", "infinity"]
    image: debian
`;

export const privateRegPod = `apiVersion: v1
kind: Pod
metadata:
  name: private-reg
spec:
  containers:
    - name: private-reg-container
      image: <your-private-image>
  imagePullSecrets:
    - name: regcred

`;

export const redisPod = `apiVersion: v1
kind: Pod
metadata:
  name: redis-master
  labels:
    app: redis
spec:
  containers:
    - name: master
      image: redis
      env:
        - name: MASTER
          value: "true"
      ports:
        - containerPort: 6379
`;

export const redisService = `apiVersion: v1
kind: Service
metadata:
  name: redis
spec:
  ports:
    - port: 6379
      targetPort: 6379
  selector:
    app: redis
`;

export const helloApplication = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: hello-world
spec:
  selector:
    matchLabels:
      run: load-balancer-example
  replicas: 2
  template:
    metadata:
      labels:
        run: load-balancer-example
    spec:
      containers:
        - name: hello-world
          image: us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0
          ports:
            - containerPort: 8080
              protocol: TCP
`;
