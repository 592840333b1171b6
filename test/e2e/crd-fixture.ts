/**
 * The CronTab CRD of upstream's CRD walkthrough, extended: two versions (v1
 * stored, v1beta1 served), defaults, a CEL rule and a transition rule,
 * printer columns, a short name and category, status and scale subresources.
 */
export const crdName = 'crontabs.stable.example.com';

export const cronTabCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    selectableFields:
    - jsonPath: .spec.image
    schema:
      openAPIV3Schema:
        description: CronTab runs an image on a schedule.
        type: object
        properties:
          spec:
            description: The schedule and what to run.
            type: object
            x-kubernetes-validations:
            - rule: "self.minReplicas <= self.replicas"
              message: "replicas should be greater than or equal to minReplicas."
            - rule: "!oldSelf.image.startsWith('frozen-') || self.image == oldSelf.image"
              message: "a frozen image cannot change"
            properties:
              cronSpec:
                description: When to run, in cron syntax.
                type: string
                pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'
              image:
                type: string
                default: nginx
              replicas:
                type: integer
                minimum: 0
                maximum: 10
                default: 1
              minReplicas:
                type: integer
                default: 0
          status:
            type: object
            properties:
              replicas:
                type: integer
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;

export const cronTab = (name: string, extra = '') => `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: ${name}
  labels:
    app: cron
spec:
  cronSpec: "* * * * */5"
  replicas: 2
${extra}`;
