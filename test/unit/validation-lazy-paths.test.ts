/**
 * Validation that makes a field's path only when an error names it (alloc15: container
 * ports and volume mounts, pod volumes, resource requirements, projected volume sources, key-to-path items, downward API files):
 * the errors, their order and every path as the eager validators gave them. The expected texts
 * were taken from main before the change (d270de9b), for bodies that trip every branch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { validateCreate } from '../../src/api/validation/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';

const pod = (spec: Partial<PodSpec>): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'd' },
  spec: { serviceAccountName: 'sa', restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, containers: [], ...spec } });
const c = (extra: Partial<Container> = {}): Container => ({ name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File', ...extra });
const messages = (p: Pod) => validateCreate('v1/Pod', p).map(fieldErrorMessage);

const cases: Record<string, Pod> = {
  ports: pod({ containers: [
    c({ ports: [{ containerPort: 80, name: 'web' }, { containerPort: 0, name: 'web', protocol: 'TCP' }, { containerPort: 70000, hostPort: -1, name: 'Bad--', protocol: 'XX' as never },
      { containerPort: 1.5, name: 'web2', protocol: 'UDP', hostPort: 99999 }] }),
    c({ name: 'd', ports: [{ containerPort: 80, hostPort: 8080, protocol: 'TCP' }] }), c({ name: 'e', ports: [{ containerPort: 81, hostPort: 8080, protocol: 'TCP' }] }),
  ] }),
  mounts: pod({ containers: [c({
    volumeMounts: [{ name: 'v', mountPath: '/a' }, { name: '', mountPath: '/a', subPath: '/abs', subPathExpr: '../x', mountPropagation: 'Bidirectional', recursiveReadOnly: 'Enabled' },
      { name: 'nope', mountPath: '', recursiveReadOnly: 'Weird' }, { name: 'v', mountPath: '/b', recursiveReadOnly: 'IfPossible', readOnly: true, mountPropagation: 'None' }, { name: 'blk', mountPath: '/dev/x' }],
    volumeDevices: [{ name: 'blk', devicePath: '/dev/x' }] })],
  volumes: [{ name: 'v', emptyDir: {} }, { name: 'blk', persistentVolumeClaim: { claimName: 'p-eph' } },
    { name: 'eph', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
    { name: 'x', persistentVolumeClaim: { claimName: 'p-eph' } }, { name: 'Bad_Name', emptyDir: {} }, { name: 'v', emptyDir: {} }] }),
  resources: pod({ containers: [c({ resources: {
    limits: { cpu: '1', memory: 'x', 'example.com/gpu': '1.5', hugepages_bad: '1', 'hugepages-2Mi': '1Gi', pods: '-1' },
    requests: { cpu: '2', memory: '1Gi', 'example.com/gpu': '1', 'hugepages-1Gi': '1Gi', 'ephemeral-storage': -1 as unknown as string, 'a/b/c': '1', nvidia: 'abc' },
  } })] }),
  resources2: pod({ containers: [c({ resources: { limits: { 'hugepages-2Mi': '2Mi' }, requests: { 'hugepages-2Mi': '2Mi', 'example.com/foo': '2' } } })], overhead: { cpu: '-1', foo: '1' } }),
  projected: pod({ containers: [c({ volumeMounts: [{ name: 'v', mountPath: '/x' }] })], volumes: [
    { name: 'v', projected: { sources: [
      { secret: { items: [{ key: '', path: '/abs', mode: 512 }, { key: 'k', path: '../up' }, { key: 'k', path: 'a/../b' }] } },
      { configMap: { name: 'cm', items: [{ key: 'k', path: 'dup' }, { key: 'k2', path: 'dup', mode: -1 }] }, secret: { name: 's' } },
      { downwardAPI: { items: [{ path: '/abs2', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.nope' }, mode: 999 }, { path: 'dup' }, { path: '', resourceFieldRef: { resource: 'limits.cpu' } }] } },
      { serviceAccountToken: { path: '/t', expirationSeconds: 10 } },
      { serviceAccountToken: { expirationSeconds: 2 ** 33 } as never },
      { serviceAccountToken: { path: '..x' } },
      {},
    ] } },
    { name: 'w', secret: { secretName: 's', items: [{ key: 'k', path: '/q', mode: 4096 }] } },
    { name: 'z', configMap: { name: 'c', items: [{ key: '', path: '' }] } },
    { name: 'd', downwardAPI: { items: [{ path: '..', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' }, mode: -5 }] } },
  ] }),
};

const expected: Record<string, string[]> = {
  ports: [
    "spec.containers[0].ports[0].protocol: Required value",
    "spec.containers[0].ports[1].name: Duplicate value: \"web\"",
    "spec.containers[0].ports[1].containerPort: Required value",
    "spec.containers[0].ports[2].name: Invalid value: \"Bad--\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
    "spec.containers[0].ports[2].name: Invalid value: \"Bad--\": must not contain consecutive hyphens",
    "spec.containers[0].ports[2].name: Invalid value: \"Bad--\": must not begin or end with a hyphen",
    "spec.containers[0].ports[2].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    "spec.containers[0].ports[2].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive",
    "spec.containers[0].ports[2].protocol: Unsupported value: \"XX\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
    "spec.containers[0].ports[3].containerPort: Invalid value: 1.5: must be between 1 and 65535, inclusive",
    "spec.containers[0].ports[3].hostPort: Invalid value: 99999: must be between 1 and 65535, inclusive",
    "spec.containers[2].ports[0].hostPort: Duplicate value: \"TCP//8080\"",
  ],
  mounts: [
    "spec.volumes[1].persistentVolumeClaim.claimName: Invalid value: \"p-eph\": must not reference a PVC that gets created for an ephemeral volume",
    "spec.volumes[3].persistentVolumeClaim.claimName: Invalid value: \"p-eph\": must not reference a PVC that gets created for an ephemeral volume",
    "spec.volumes[4].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    "spec.volumes[5].name: Duplicate value: \"v\"",
    "spec.containers[0].volumeMounts[1].name: Required value",
    "spec.containers[0].volumeMounts[1].name: Not found: \"\"",
    "spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/a\": must be unique",
    "spec.containers[0].volumeMounts.subPath: Invalid value: \"/abs\": must be a relative path",
    "spec.containers[0].volumeMounts[1].subPathExpr: Invalid value: \"../x\": subPathExpr and subPath are mutually exclusive",
    "spec.containers[0].volumeMounts.subPathExpr: Invalid value: \"../x\": must not contain '..'",
    "spec.containers[0].volumeMounts.mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers",
    "spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when readOnly is true",
    "spec.containers[0].volumeMounts.recursiveReadOnly: Forbidden: may only be specified when mountPropagation is None or not specified",
    "spec.containers[0].volumeMounts[2].name: Not found: \"nope\"",
    "spec.containers[0].volumeMounts[2].mountPath: Required value",
    "spec.containers[0].volumeMounts.recursiveReadOnly: Unsupported value: \"Weird\": supported values: \"Disabled\", \"Enabled\", \"IfPossible\"",
    "spec.containers[0].volumeMounts[4].name: Invalid value: \"blk\": must not already exist in volumeDevices",
    "spec.containers[0].volumeMounts[4].mountPath: Invalid value: \"/dev/x\": must not already exist as a path in volumeDevices",
    "spec.containers[0].volumeDevices[0].name: Invalid value: \"blk\": must not already exist in volumeMounts",
    "spec.containers[0].volumeDevices[0].devicePath: Invalid value: \"/dev/x\": must not already exist as a path in volumeMounts",
  ],
  resources: [
    "spec.containers[0].resources.limits[memory]: Invalid value: \"x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    "spec.containers[0].resources.requests[nvidia]: Invalid value: \"abc\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    "spec.containers[0].resources.limits[example.com/gpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:\"\", Format:\"DecimalSI\"}: must be an integer",
    "spec.containers[0].resources.limits[hugepages_bad]: Invalid value: \"hugepages_bad\": must be a standard resource type or fully qualified",
    "spec.containers[0].resources.limits[hugepages_bad]: Invalid value: \"hugepages_bad\": must be a standard resource for containers",
    "spec.containers[0].resources.limits[pods]: Invalid value: \"pods\": must be a standard resource for containers",
    "spec.containers[0].resources.limits[pods]: Invalid value: \"-1\": must be greater than or equal to 0",
    "spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1",
    "spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to example.com/gpu limit of 1500m",
    "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
    "spec.containers[0].resources.requests[ephemeral-storage]: Invalid value: \"-1\": must be greater than or equal to 0",
    "spec.containers[0].resources.requests[a/b/c]: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    "spec.containers[0].resources.requests[a/b/c]: Invalid value: \"a/b/c\": doesn't follow extended resource name standard",
    "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
  ],
  resources2: [
    "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
    "spec.containers[0].resources: Forbidden: HugePages require cpu or memory",
    "spec.overhead.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0",
    "spec.overhead.limits[foo]: Invalid value: \"foo\": must be a standard resource type or fully qualified",
    "spec.overhead.limits[foo]: Invalid value: \"foo\": must be a standard resource for containers",
  ],
  projected: [
    "spec.volumes[0].projected.sources[0].secret.name: Required value",
    "spec.volumes[0].projected.sources[0].secret.items[0].key: Required value",
    "spec.volumes[0].projected.sources[0].secret.items[0].path: Invalid value: \"/abs\": must be a relative path",
    "spec.volumes[0].projected.sources[0].secret.items[0].mode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
    "spec.volumes[0].projected.sources[0].secret.items[1].path: Invalid value: \"../up\": must not contain '..'",
    "spec.volumes[0].projected.sources[0].secret.items[2].path: Invalid value: \"a/../b\": must not contain '..'",
    "spec.volumes[0].projected.sources[1].configMap.items[1].mode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive",
    "spec.volumes[0].projected: Invalid value: \"cm\": conflicting duplicate paths",
    "spec.volumes[0].projected.sources[1]: Forbidden: may not specify more than 1 volume type per source",
    "spec.volumes[0].projected.sources[2].downwardAPI.path: Invalid value: \"/abs2\": must be a relative path",
    "spec.volumes[0].projected.sources[2].downwardAPI.fieldRef.fieldPath: Invalid value: \"metadata.nope\": error converting fieldPath: field label not supported: metadata.nope",
    "spec.volumes[0].projected.sources[2].downwardAPI.mode: Invalid value: 999: must be a number between 0 and 0777 (octal), both inclusive",
    "spec.volumes[0].projected.sources[2].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required",
    "spec.volumes[0].projected: Invalid value: \"dup\": conflicting duplicate paths",
    "spec.volumes[0].projected.sources[2].downwardAPI.path: Required value",
    "spec.volumes[0].projected.sources[2].downwardAPI.resourceFieldRef.containerName: Required value",
    "spec.volumes[0].projected.sources[3].serviceAccountToken.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes",
    "spec.volumes[0].projected.path: Invalid value: \"/t\": must be a relative path",
    "spec.volumes[0].projected.sources[4].serviceAccountToken.expirationSeconds: Invalid value: 8589934592: may not specify a duration larger than 2^32 seconds",
    "spec.volumes[0].projected.path: Required value",
    "spec.volumes[0].projected.path: Invalid value: \"..x\": must not start with '..'",
    "spec.volumes[1].secret.items[0].path: Invalid value: \"/q\": must be a relative path",
    "spec.volumes[1].secret.items[0].mode: Invalid value: 4096: must be a number between 0 and 0777 (octal), both inclusive",
    "spec.volumes[2].configMap.items[0].key: Required value",
    "spec.volumes[2].configMap.items[0].path: Required value",
    "spec.volumes[3].downwardAPI.path: Invalid value: \"..\": must not contain '..'",
    "spec.volumes[3].downwardAPI.path: Invalid value: \"..\": must not start with '..'",
    "spec.volumes[3].downwardAPI.mode: Invalid value: -5: must be a number between 0 and 0777 (octal), both inclusive",
    "spec.containers[0].volumeMounts[0].name: Not found: \"v\"",
  ],
};

for (const name of Object.keys(cases)) {
  test(`lazily made paths: ${name} errors as the eager validators gave them`, () => {
    assert.deepEqual(messages(cases[name]!), expected[name]);
  });
}

test('lazily made paths: a valid pod with requests, limits and the token volume has no errors', () => {
  assert.deepEqual(messages(pod({
    containers: [c({ resources: { requests: { cpu: '100m', memory: '500Mi' }, limits: { cpu: '100m', memory: '500Mi', 'example.com/gpu': '2' } },
      volumeMounts: [{ name: 'kube-api-access-abcde', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }] })],
    volumes: [{ name: 'kube-api-access-abcde', projected: { defaultMode: 420, sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ] } }],
  })), []);
});
