/**
 * The manifests of the kubernetes.io pages walked by up-tutorials-pages4, as
 * the pages give them (content/en/examples of kubernetes/website):
 * deployments/deployment-with-configmap-as-envvar.yaml, -two-containers,
 * -and-sidecar-container, deployment-with-immutable-configmap-as-volume.yaml
 * (JSON-like YAML, as the files are), configmap/immutable-configmap.yaml and
 * new-immutable-configmap.yaml, security/example-baseline-pod.yaml, and the
 * CertificateSigningRequest the CSR page pipes to kubectl apply.
 */

/** The CSR page's heredoc with `$(cat myuser.csr | base64 | tr -d "\n")` filled in. */
export const myuserCSR = (request: string) => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: myuser
spec:
  request: ${request}
  signerName: kubernetes.io/kube-apiserver-client
  expirationSeconds: 86400  # one day
  usages:
  - client auth
`;

export const configmapEnvVar = `---
{
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "configmap-env-var",
    labels: {
      app.kubernetes.io/name: "configmap-env-var",
    },
  },
  spec: {
    replicas: 3,
    selector: {
      matchLabels: {
        app.kubernetes.io/name: "configmap-env-var",
      },
    },
    template: {
      metadata: {
        labels: {
          app.kubernetes.io/name: "configmap-env-var",
        },
      },
      spec: {
        containers: [{
          name: "alpine",
          image: "alpine:3",
          env: [{
            name: "FRUITS",
            valueFrom: {
              configMapKeyRef: {
                key: "fruits",
                name: "fruits",
              },
            },
          }],
          command: [
            "/bin/sh",
            "-c",
            "while true; do echo \\"$(date) The basket is full of $FRUITS\\"; sleep 10; done;",
          ],
          ports: [{
            containerPort: 80,
          }],
        }],
      },
    },
  },
}
`;

export const configmapTwoContainers = `---
{
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "configmap-two-containers",
    labels: {
      app.kubernetes.io/name: "configmap-two-containers",
    },
  },
  spec: {
    replicas: 3,
    selector: {
      matchLabels: {
        app.kubernetes.io/name: "configmap-two-containers",
      },
    },
    template: {
      metadata: {
        labels: {
          app.kubernetes.io/name: "configmap-two-containers",
        },
      },
      spec: {
        volumes: [{
          name: "shared-data",
          emptyDir: {},
        }, {
          name: "config-volume",
          configMap: {
            name: "color",
          },
        }],
        containers: [{
          name: "nginx",
          image: "nginx",
          volumeMounts: [{
            name: "shared-data",
            mountPath: "/usr/share/nginx/html",
          }],
        }, {
          name: "alpine",
          image: "alpine:3",
          volumeMounts: [{
            name: "shared-data",
            mountPath: "/pod-data",
          }, {
            name: "config-volume",
            mountPath: "/etc/config",
          }],
          command: [
            "/bin/sh",
            "-c",
            "while true; do echo \\"$(date) My preferred color is $(cat /etc/config/color)\\" > /pod-data/index.html; sleep 10; done;",
          ],
        }],
      },
    },
  },
}
`;

/**
 * deployment-with-configmap-and-sidecar-container.yaml: the two-container Deployment renamed, its
 * alpine writer moved to initContainers as a sidecar (restartPolicy: Always).
 */
export const configmapSidecarContainer = configmapTwoContainers
  .replaceAll('configmap-two-containers', 'configmap-sidecar-container')
  .replace('        }, {\n          name: "alpine",\n          image: "alpine:3",\n',
    '        }],\n        initContainers: [{\n          name: "alpine",\n          image: "alpine:3",\n          restartPolicy: "Always",\n');

export const immutableConfigmapVolume = `---
{
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "immutable-configmap-volume",
    labels: {
      app.kubernetes.io/name: "immutable-configmap-volume",
    },
  },
  spec: {
    replicas: 3,
    selector: {
      matchLabels: {
        app.kubernetes.io/name: "immutable-configmap-volume",
      },
    },
    template: {
      metadata: {
        labels: {
          app.kubernetes.io/name: "immutable-configmap-volume",
        },
      },
      spec: {
        containers: [{
          name: "alpine",
          image: "alpine:3",
          command: [
            "/bin/sh",
            "-c",
            "while true; do echo \\"$(date) The name of the company is $(cat /etc/config/company_name)\\"; sleep 10; done;",
          ],
          ports: [{
            containerPort: 80,
          }],
          volumeMounts: [{
            name: "config-volume",
            mountPath: "/etc/config",
          }],
        }],
        volumes: [{
          name: "config-volume",
          configMap: {
            name: "company-name-20150801",
          },
        }],
      },
    },
  },
}
`;

export const immutableConfigMap = `apiVersion: v1
data:
  company_name: "ACME, Inc." # existing fictional company name
kind: ConfigMap
immutable: true
metadata:
  name: company-name-20150801
`;

export const newImmutableConfigMap = `apiVersion: v1
data:
  company_name: "Fiktivesunternehmen GmbH" # new fictional company name
kind: ConfigMap
immutable: true
metadata:
  name: company-name-20240312
`;

export const exampleBaselinePod = `apiVersion: v1
kind: Pod
metadata:
  name: nginx
spec:
  containers:
    - image: nginx
      name: nginx
      ports:
        - containerPort: 80
`;
