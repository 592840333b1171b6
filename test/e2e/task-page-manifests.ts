/**
 * Manifests from Kubernetes task pages that more than one test applies as
 * the page gives them: the CronJob page's `hello` (tutorial-logs,
 * up-tutorials-ops) and the lifecycle handlers page's `lifecycle-demo`
 * (up-tutorials-config for postStart, up-tutorials-ops for preStop); the
 * Services page's run-my-nginx (up-tutorials-workloads, up-tutorials-networking).
 */

/** "Running Automated Tasks with a CronJob": a job a minute that prints the date and a greeting. */
export const helloCronJob = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: busybox:1.28
            imagePullPolicy: IfNotPresent
            command:
            - /bin/sh
            - -c
            - date; echo Hello from the Kubernetes cluster
          restartPolicy: OnFailure
`;

/** "Attach Handlers to Container Lifecycle Events": nginx with a postStart and a preStop exec handler. */
export const lifecycleDemo = `apiVersion: v1
kind: Pod
metadata:
  name: lifecycle-demo
spec:
  containers:
  - name: lifecycle-demo-container
    image: nginx
    lifecycle:
      postStart:
        exec:
          command: ["/bin/sh", "-c", "echo Hello from the postStart handler > /usr/share/message"]
      preStop:
        exec:
          command: ["/bin/sh","-c","nginx -s quit; while killall -0 nginx; do sleep 1; done"]
`;

/** "Connecting Applications with Services": run-my-nginx.yaml, two nginx pods with a container port. */
export const runMyNginx = `apiVersion: apps/v1
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
        ports:
        - containerPort: 80
`;
