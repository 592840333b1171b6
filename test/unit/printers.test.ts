/**
 * Server-side printing: columns and cells as kube-apiserver 1.32's
 * pkg/printers/internalversion/printers.go produces them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, printTable } from '../../src/registry/printers/index.js';

const now = new Date('2025-01-01T12:00:00Z');
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
/** An RFC 3339 timestamp `ms` before `now`, second precision like metav1.Time. */
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString().replace('.000Z', 'Z');

const columnsOf = (key: string) => printTable(key, [], { now }).columnDefinitions.map((c) => `${c.name}${c.priority ? '*' : ''}`);
const cellsOf = (key: string, obj: object) => printTable(key, [obj], { now }).rows[0].cells;
/** Cells keyed by column name, for readable assertions. */
function row(key: string, obj: object): Record<string, unknown> {
  const t = printTable(key, [obj], { now });
  return Object.fromEntries(t.columnDefinitions.map((c, i) => [c.name, t.rows[0].cells[i]]));
}

describe('humanDuration (apimachinery util/duration)', () => {
  const cases: [number, string][] = [
    [-2 * S, '<invalid>'], [-1500, '0s'], [-500, '0s'], [0, '0s'], [999, '0s'], [45 * S, '45s'], [119 * S, '119s'],
    [2 * M, '2m'], [5 * M + 2 * S, '5m2s'], [9 * M + 59 * S, '9m59s'], [10 * M, '10m'], [10 * M + 30 * S, '10m'],
    [179 * M, '179m'], [3 * H, '3h'], [3 * H + 5 * M, '3h5m'], [7 * H + 59 * M, '7h59m'], [8 * H + 30 * M, '8h'],
    [47 * H, '47h'], [48 * H, '2d'], [2 * D + 3 * H, '2d3h'], [7 * D + 23 * H, '7d23h'], [8 * D + 5 * H, '8d'],
    [400 * D, '400d'], [729 * D, '729d'], [730 * D, '2y'], [736 * D, '2y6d'], [7 * 365 * D + 364 * D, '7y364d'],
    [8 * 365 * D, '8y'], [9 * 365 * D + 100 * D, '9y'],
  ];
  for (const [ms, want] of cases) {
    it(`${ms}ms → ${want}`, () => assert.equal(humanDuration(ms), want));
  }
});

describe('column definitions', () => {
  const cases: [string, string[]][] = [
    ['v1/Pod', ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP*', 'Node*', 'Nominated Node*', 'Readiness Gates*']],
    ['v1/Node', ['Name', 'Status', 'Roles', 'Age', 'Version', 'Internal-IP*', 'External-IP*', 'OS-Image*', 'Kernel-Version*', 'Container-Runtime*']],
    ['apps/v1/DaemonSet', ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['apps/v1/StatefulSet', ['Name', 'Ready', 'Age', 'Containers*', 'Images*']],
    ['apps/v1/Deployment', ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['apps/v1/ReplicaSet', ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers*', 'Images*', 'Selector*']],
    ['apps/v1/ControllerRevision', ['Name', 'Controller', 'Revision', 'Age']],
    ['v1/Service', ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector*']],
    ['v1/Endpoints', ['Name', 'Endpoints', 'Age']],
    ['v1/Event', ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*']],
    ['events.k8s.io/v1/Event', ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*']],
    ['v1/ConfigMap', ['Name', 'Data', 'Age']],
    ['v1/Secret', ['Name', 'Type', 'Data', 'Age']],
    ['v1/ServiceAccount', ['Name', 'Secrets', 'Age']],
    ['v1/Namespace', ['Name', 'Status', 'Age']],
    ['v1/PersistentVolume', ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode*']],
    ['v1/PersistentVolumeClaim', ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode*']],
    ['coordination.k8s.io/v1/Lease', ['Name', 'Holder', 'Age']],
    ['certificates.k8s.io/v1/CertificateSigningRequest', ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']],
    ['storage.k8s.io/v1/StorageClass', ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']],
    ['rbac.authorization.k8s.io/v1/ClusterRole', ['Name', 'Created At']],
  ];
  for (const [key, want] of cases) {
    it(`${key}: ${want.join(' ')}`, () => assert.deepEqual(columnsOf(key), want));
  }

  it('every column has a description, the name column format "name" and AGE type string', () => {
    for (const [key] of cases) {
      for (const c of printTable(key, [], { now }).columnDefinitions) {
        assert.ok(c.description.length > 0, `${key} ${c.name}`);
        assert.equal(c.format, c.name === 'Name' ? 'name' : '', `${key} ${c.name}`);
        if (c.name === 'Age') assert.equal(c.type, 'string');
      }
    }
  });

  it('uses upstream types and descriptions', () => {
    const pod = printTable('v1/Pod', [], { now }).columnDefinitions;
    assert.deepEqual(pod[0], {
      name: 'Name', type: 'string', format: 'name', priority: 0,
      description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
    });
    assert.equal(pod[3].type, 'string'); // RESTARTS reads "2 (5m ago)", so it is a string column
    assert.match(pod[4].description, /^CreationTimestamp is a timestamp representing the server time/);
    const ds = printTable('apps/v1/DaemonSet', [], { now }).columnDefinitions;
    assert.deepEqual(ds.map((c) => c.type), ['string', 'integer', 'integer', 'integer', 'integer', 'integer', 'string', 'string', 'string', 'string', 'string']);
    assert.equal(ds[1].description, 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/');
    assert.equal(printTable('x/v1/Foo', [], { now }).columnDefinitions[1].type, 'date');
  });
});

describe('pods', () => {
  const base = (spec: object, status: object, meta: object = {}) => ({
    metadata: { name: 'web-0', namespace: 'default', creationTimestamp: ago(10 * M), ...meta },
    spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
    status,
  });
  const running = { running: { startedAt: ago(9 * M) } };
  const ready = (extra: object = {}) => ({ name: 'app', ready: true, restartCount: 0, state: running, ...extra });
  const cases: { name: string; pod: object; want: [string, string, string] }[] = [
    { name: 'pending, not scheduled', pod: base({}, { phase: 'Pending' }), want: ['0/1', 'Pending', '0'] },
    { name: 'running and ready', pod: base({}, { phase: 'Running', containerStatuses: [ready()] }), want: ['1/1', 'Running', '0'] },
    {
      name: 'restarted twice, the last 5m ago',
      pod: base({}, { phase: 'Running', containerStatuses: [ready({ restartCount: 2, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(5 * M) } } })] }),
      want: ['1/1', 'Running', '2 (5m ago)'],
    },
    {
      name: 'crash looping',
      pod: base({}, { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(30 * S) } } }] }),
      want: ['0/1', 'CrashLoopBackOff', '4 (30s ago)'],
    },
    {
      name: 'image pull error, two containers: the first one names the status',
      pod: base({ containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] }, {
        phase: 'Pending',
        containerStatuses: [
          { name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ErrImagePull' } } },
          { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
        ],
      }),
      want: ['0/2', 'ErrImagePull', '0'],
    },
    {
      name: 'completed',
      pod: base({}, { phase: 'Succeeded', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }),
      want: ['0/1', 'Completed', '0'],
    },
    {
      name: 'killed by a signal without a reason',
      pod: base({}, { phase: 'Failed', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } }] }),
      want: ['0/1', 'Signal:9', '0'],
    },
    {
      name: 'exit code without a reason',
      pod: base({}, { phase: 'Failed', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } }] }),
      want: ['0/1', 'ExitCode:2', '0'],
    },
    {
      name: 'one container completed, another still running and the pod ready',
      pod: base({ containers: [{ name: 'a' }, { name: 'b' }] }, {
        phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [ready({ name: 'a' }), { name: 'b', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
      }),
      want: ['1/2', 'Running', '0'],
    },
    {
      name: 'one container completed, another running, pod not ready',
      pod: base({ containers: [{ name: 'a' }, { name: 'b' }] }, {
        phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [ready({ name: 'a' }), { name: 'b', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
      }),
      want: ['1/2', 'NotReady', '0'],
    },
    {
      name: 'terminating',
      pod: base({}, { phase: 'Running', containerStatuses: [ready()] }, { deletionTimestamp: ago(5 * S) }),
      want: ['1/1', 'Terminating', '0'],
    },
    {
      name: 'succeeded pod being deleted stays Completed',
      pod: base({}, { phase: 'Succeeded', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }, { deletionTimestamp: ago(5 * S) }),
      want: ['0/1', 'Completed', '0'],
    },
    {
      name: 'on a lost node and being deleted',
      pod: base({}, { phase: 'Running', reason: 'NodeLost', containerStatuses: [ready()] }, { deletionTimestamp: ago(5 * S) }),
      want: ['1/1', 'Unknown', '0'],
    },
    {
      name: 'status reason Evicted',
      pod: base({}, { phase: 'Failed', reason: 'Evicted' }),
      want: ['0/1', 'Evicted', '0'],
    },
    {
      name: 'scheduling gated',
      pod: base({ schedulingGates: [{ name: 'g' }] }, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
      want: ['0/1', 'SchedulingGated', '0'],
    },
    {
      name: 'first of two init containers running',
      pod: base({ initContainers: [{ name: 'i1' }, { name: 'i2' }] }, {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'i1', ready: false, restartCount: 0, state: running },
          { name: 'i2', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
        ],
        containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
      }),
      want: ['0/1', 'Init:0/2', '0'],
    },
    {
      name: 'second init container crash looping (restarts count init containers)',
      pod: base({ initContainers: [{ name: 'i1' }, { name: 'i2' }] }, {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'i1', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
          { name: 'i2', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * M) } } },
        ],
      }),
      want: ['0/1', 'Init:CrashLoopBackOff', '3 (2m ago)'],
    },
    {
      name: 'init container failed',
      pod: base({ initContainers: [{ name: 'i1' }] }, {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'i1', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }],
      }),
      want: ['0/1', 'Init:Error', '0'],
    },
    {
      name: 'init container failed without a reason',
      pod: base({ initContainers: [{ name: 'i1' }] }, {
        phase: 'Pending',
        initContainerStatuses: [{ name: 'i1', ready: false, restartCount: 0, state: { terminated: { exitCode: 3 } } }],
      }),
      want: ['0/1', 'Init:ExitCode:3', '0'],
    },
    {
      name: 'init done, app container still being created',
      pod: base({ initContainers: [{ name: 'i1' }] }, {
        phase: 'Pending',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ name: 'i1', ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
        containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
      }),
      want: ['0/1', 'PodInitializing', '0'],
    },
    {
      name: 'started sidecar counts as a container, and its restarts count',
      pod: base({ initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] }, {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }],
        initContainerStatuses: [{ name: 'proxy', ready: true, started: true, restartCount: 1, state: running, lastState: { terminated: { exitCode: 1, finishedAt: ago(3 * H) } } }],
        containerStatuses: [ready()],
      }),
      want: ['2/2', 'Running', '1 (3h ago)'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = row('v1/Pod', c.pod);
      assert.deepEqual([r.Ready, r.Status, r.Restarts], c.want);
      assert.equal(r.Name, 'web-0');
      assert.equal(r.Age, '10m');
    });
  }

  it('wide cells: IP, NODE, NOMINATED NODE, READINESS GATES', () => {
    const unscheduled = cellsOf('v1/Pod', base({}, { phase: 'Pending' }));
    assert.deepEqual(unscheduled.slice(5), ['<none>', '<none>', '<none>', '<none>']);
    const gated = cellsOf('v1/Pod', base(
      { nodeName: 'node-1', readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] },
      { phase: 'Running', podIP: '10.244.1.5', podIPs: [{ ip: '10.244.1.5' }, { ip: 'fd00::5' }], nominatedNodeName: 'node-2', conditions: [{ type: 'example.com/lb', status: 'True' }, { type: 'example.com/dns', status: 'False' }] },
    ));
    assert.deepEqual(gated.slice(5), ['10.244.1.5', 'node-1', 'node-2', '1/2']);
    assert.equal(cellsOf('v1/Pod', base({}, { phase: 'Running', podIP: '10.0.0.9' }))[5], '10.0.0.9');
  });

  it('marks finished pods with a Completed row condition', () => {
    const t = printTable('v1/Pod', [base({}, { phase: 'Succeeded' }), base({}, { phase: 'Failed' }), base({}, { phase: 'Running' })], { now });
    assert.deepEqual(t.rows[0].conditions, [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
    assert.deepEqual(t.rows[1].conditions, [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
    assert.equal(t.rows[2].conditions, undefined);
  });
});

describe('nodes', () => {
  const controlPlane = {
    metadata: {
      name: 'cp-1', creationTimestamp: ago(2 * D + 3 * H),
      labels: { 'kubernetes.io/hostname': 'cp-1', 'node-role.kubernetes.io/control-plane': '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' },
    },
    spec: { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] },
    status: {
      conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status: 'True', reason: 'KubeletReady' }],
      addresses: [{ type: 'InternalIP', address: '192.168.1.10' }, { type: 'Hostname', address: 'cp-1' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Ubuntu 24.04.1 LTS', kernelVersion: '6.8.0-45-generic', containerRuntimeVersion: 'containerd://1.7.22' },
    },
  };
  it('a tainted control-plane node', () => {
    assert.deepEqual(cellsOf('v1/Node', controlPlane), [
      'cp-1', 'Ready', 'control-plane', '2d3h', 'v1.32.0', '192.168.1.10', '<none>', 'Ubuntu 24.04.1 LTS', '6.8.0-45-generic', 'containerd://1.7.22',
    ]);
  });
  const cases: { name: string; node: object; status: string; roles: string }[] = [
    { name: 'not ready and cordoned', node: { spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'False' }] } }, status: 'NotReady,SchedulingDisabled', roles: '<none>' },
    { name: 'ready unknown', node: { status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }, status: 'NotReady', roles: '<none>' },
    { name: 'no conditions yet', node: { status: {} }, status: 'Unknown', roles: '<none>' },
    { name: 'cordoned, no conditions', node: { spec: { unschedulable: true } }, status: 'Unknown,SchedulingDisabled', roles: '<none>' },
    {
      name: 'roles from both label forms, sorted and de-duplicated',
      node: { metadata: { labels: { 'node-role.kubernetes.io/worker': 'true', 'node-role.kubernetes.io/infra': '', 'kubernetes.io/role': 'worker', 'node-role.kubernetes.io/': '' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      status: 'Ready', roles: 'infra,worker',
    },
    { name: 'empty kubernetes.io/role is ignored', node: { metadata: { labels: { 'kubernetes.io/role': '' } } }, status: 'Unknown', roles: '<none>' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = row('v1/Node', { metadata: { name: 'n', creationTimestamp: ago(M) }, ...c.node });
      assert.deepEqual([r.Status, r.Roles], [c.status, c.roles]);
    });
  }
  it('unknown system info and addresses', () => {
    const r = row('v1/Node', { metadata: { name: 'n' }, status: { addresses: [{ type: 'ExternalIP', address: '203.0.113.7' }] } });
    assert.deepEqual([r.Age, r.Version, r['Internal-IP'], r['External-IP'], r['OS-Image'], r['Kernel-Version'], r['Container-Runtime']],
      ['<unknown>', '', '<none>', '203.0.113.7', '<unknown>', '<unknown>', '<unknown>']);
  });
});

describe('apps', () => {
  const template = (nodeSelector?: Record<string, string>) => ({
    metadata: { labels: { app: 'fluentd' } },
    spec: { nodeSelector, containers: [{ name: 'fluentd', image: 'fluentd:v1.16' }, { name: 'exporter', image: 'prom/exporter:1.0' }] },
  });
  it('a DaemonSet with status', () => {
    const ds = {
      metadata: { name: 'fluentd', namespace: 'kube-system', creationTimestamp: ago(3 * H + 5 * M) },
      spec: { selector: { matchLabels: { app: 'fluentd', tier: 'logging' } }, template: template({ 'kubernetes.io/os': 'linux', disk: 'ssd' }) },
      status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2, numberMisscheduled: 0 },
    };
    assert.deepEqual(cellsOf('apps/v1/DaemonSet', ds), [
      'fluentd', 3, 3, 2, 3, 2, 'disk=ssd,kubernetes.io/os=linux', '3h5m', 'fluentd,exporter', 'fluentd:v1.16,prom/exporter:1.0', 'app=fluentd,tier=logging',
    ]);
  });
  it('a new DaemonSet without status or node selector', () => {
    const ds = { metadata: { name: 'x', creationTimestamp: ago(3 * S) }, spec: { selector: { matchLabels: { app: 'x' } }, template: template() } };
    assert.deepEqual(cellsOf('apps/v1/DaemonSet', ds).slice(1, 8), [0, 0, 0, 0, 0, '<none>', '3s']);
  });
  it('a StatefulSet', () => {
    const sts = { metadata: { name: 'db', creationTimestamp: ago(400 * D) }, spec: { replicas: 3, template: template() }, status: { readyReplicas: 2 } };
    assert.deepEqual(cellsOf('apps/v1/StatefulSet', sts), ['db', '2/3', '400d', 'fluentd,exporter', 'fluentd:v1.16,prom/exporter:1.0']);
    assert.equal(row('apps/v1/StatefulSet', { metadata: { name: 'db' }, spec: { replicas: 0 } }).Ready, '0/0');
  });
  it('a Deployment', () => {
    const d = {
      metadata: { name: 'web', creationTimestamp: ago(10 * M) },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'canary'] }, { key: 'beta', operator: 'Exists' }] }, template: template() },
      status: { readyReplicas: 1, updatedReplicas: 3, availableReplicas: 1 },
    };
    assert.deepEqual(cellsOf('apps/v1/Deployment', d), ['web', '1/3', 3, 1, '10m', 'fluentd,exporter', 'fluentd:v1.16,prom/exporter:1.0', 'app=web,beta,env in (canary,prod)']);
    const bare = { metadata: { name: 'web' }, spec: { selector: {} } };
    assert.deepEqual(cellsOf('apps/v1/Deployment', bare).slice(1, 4).concat(cellsOf('apps/v1/Deployment', bare).slice(7)), ['0/1', 0, 0, '']);
  });
  it('a ReplicaSet', () => {
    const rs = {
      metadata: { name: 'web-7d9f', creationTimestamp: ago(47 * H) },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web', 'pod-template-hash': '7d9f' }, matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, template: template() },
      status: { replicas: 2, readyReplicas: 2 },
    };
    assert.deepEqual(cellsOf('apps/v1/ReplicaSet', rs), ['web-7d9f', 2, 2, 2, '47h', 'fluentd,exporter', 'fluentd:v1.16,prom/exporter:1.0', 'app=web,pod-template-hash=7d9f,!x']);
    assert.equal(row('apps/v1/ReplicaSet', { metadata: { name: 'r' }, spec: {} }).Selector, '<none>');
  });
  it('a ControllerRevision', () => {
    const owned = {
      metadata: {
        name: 'fluentd-5d8f7c9b6', creationTimestamp: ago(2 * M + 5 * S),
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd', uid: 'u', controller: true, blockOwnerDeletion: true }],
      },
      revision: 2,
    };
    assert.deepEqual(cellsOf('apps/v1/ControllerRevision', owned), ['fluentd-5d8f7c9b6', 'daemonset.apps/fluentd', 2, '2m5s']);
    const orphan = { metadata: { name: 'r', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u' }] }, revision: 1 };
    assert.equal(row('apps/v1/ControllerRevision', orphan).Controller, '<none>');
    const core = { metadata: { name: 'r', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u', controller: true }] }, revision: 1 };
    assert.equal(row('apps/v1/ControllerRevision', core).Controller, 'configmap/c');
  });
});

describe('services and endpoints', () => {
  const svc = (spec: object, status: object = {}) => ({ metadata: { name: 's', creationTimestamp: ago(5 * D) }, spec, status });
  const cases: { name: string; obj: object; want: unknown[] }[] = [
    {
      name: 'ClusterIP',
      obj: svc({ type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }], selector: { 'k8s-app': 'kube-dns' } }),
      want: ['s', 'ClusterIP', '10.96.0.10', '<none>', '53/UDP,53/TCP', '5d', 'k8s-app=kube-dns'],
    },
    {
      name: 'headless',
      obj: svc({ type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 5432, protocol: 'TCP' }], selector: { app: 'db' } }),
      want: ['s', 'ClusterIP', 'None', '<none>', '5432/TCP', '5d', 'app=db'],
    },
    {
      name: 'NodePort with external IPs and no selector',
      obj: svc({ type: 'NodePort', clusterIPs: ['10.96.5.5'], externalIPs: ['198.51.100.1', '198.51.100.2'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] }),
      want: ['s', 'NodePort', '10.96.5.5', '198.51.100.1,198.51.100.2', '80:30080/TCP', '5d', '<none>'],
    },
    {
      name: 'LoadBalancer pending',
      obj: svc({ type: 'LoadBalancer', clusterIPs: ['10.96.1.1'], ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }] }),
      want: ['s', 'LoadBalancer', '10.96.1.1', '<pending>', '443:31443/TCP', '5d', '<none>'],
    },
    {
      name: 'LoadBalancer with ingress (sorted, unclipped) and external IPs',
      obj: svc({ type: 'LoadBalancer', clusterIPs: ['10.96.1.1'], externalIPs: ['192.0.2.9'], ports: [{ port: 80, nodePort: 30001, protocol: 'TCP' }] },
        { loadBalancer: { ingress: [{ hostname: 'a-very-long-hostname.elb.example.com' }, { ip: '203.0.113.5' }, { ip: '203.0.113.5' }] } }),
      want: ['s', 'LoadBalancer', '10.96.1.1', '203.0.113.5,a-very-long-hostname.elb.example.com,192.0.2.9', '80:30001/TCP', '5d', '<none>'],
    },
    {
      name: 'ExternalName',
      obj: svc({ type: 'ExternalName', externalName: 'db.example.com' }),
      want: ['s', 'ExternalName', '<none>', 'db.example.com', '<none>', '5d', '<none>'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(cellsOf('v1/Service', c.obj), c.want));

  const ep = (subsets?: object[]) => ({ metadata: { name: 'e', creationTimestamp: ago(M) }, subsets });
  const epCases: { name: string; obj: object; want: string }[] = [
    { name: 'no subsets', obj: ep(), want: '<none>' },
    { name: 'only not-ready addresses', obj: ep([{ notReadyAddresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }]), want: '' },
    { name: 'one port', obj: ep([{ addresses: [{ ip: '10.244.0.5' }, { ip: '10.244.1.7' }], ports: [{ port: 8080, protocol: 'TCP' }] }]), want: '10.244.0.5:8080,10.244.1.7:8080' },
    { name: 'headless without ports', obj: ep([{ addresses: [{ ip: '10.244.0.5' }] }]), want: '10.244.0.5' },
    { name: 'IPv6', obj: ep([{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] }]), want: '[fd00::1]:80' },
    {
      name: 'more than three',
      obj: ep([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }, { port: 9153 }] }]),
      want: '10.0.0.1:53,10.0.0.2:53,10.0.0.1:53 + 3 more...',
    },
  ];
  for (const c of epCases) it(`endpoints: ${c.name}`, () => assert.deepEqual(cellsOf('v1/Endpoints', c.obj), ['e', c.want, '60s']));
});

describe('events', () => {
  it('a core event with count and source', () => {
    const ev = {
      metadata: { name: 'web-0.17f2a', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'web-0', namespace: 'default', fieldPath: 'spec.containers{app}' },
      reason: 'BackOff', message: 'Back-off restarting failed container app\n', type: 'Warning',
      source: { component: 'kubelet', host: 'node-1' }, firstTimestamp: ago(H), lastTimestamp: ago(2 * M), count: 12,
    };
    assert.deepEqual(cellsOf('v1/Event', ev), [
      '2m', 'Warning', 'BackOff', 'pod/web-0', 'spec.containers{app}', 'kubelet, node-1', 'Back-off restarting failed container app', '60m', 12, 'web-0.17f2a',
    ]);
  });
  it('a singleton event with only eventTime and a reporting controller', () => {
    const ev = {
      metadata: { name: 'x' }, involvedObject: { kind: 'Node' }, reason: 'Starting', type: 'Normal', message: 'Starting kubelet.',
      eventTime: ago(30 * S), reportingComponent: 'kubelet', reportingInstance: '',
    };
    assert.deepEqual(cellsOf('v1/Event', ev), ['30s', 'Normal', 'Starting', 'node', '', 'kubelet', 'Starting kubelet.', '30s', 1, 'x']);
  });
  it('an events.k8s.io/v1 event with a series', () => {
    const ev = {
      metadata: { name: 'ds.1' },
      regarding: { kind: 'DaemonSet', name: 'fluentd', namespace: 'kube-system' },
      reason: 'SuccessfulCreate', note: 'Created pod: fluentd-abcde', type: 'Normal', action: 'Create',
      eventTime: '2025-01-01T11:00:00.000000Z', series: { count: 4, lastObservedTime: '2025-01-01T11:55:00.000000Z' },
      reportingController: 'daemonset-controller', reportingInstance: '',
    };
    assert.deepEqual(cellsOf('events.k8s.io/v1/Event', ev), [
      '5m', 'Normal', 'SuccessfulCreate', 'daemonset/fluentd', '', 'daemonset-controller', 'Created pod: fluentd-abcde', '60m', 4, 'ds.1',
    ]);
  });
  it('events.k8s.io/v1 also prints an event kept in core/v1 form', () => {
    const core = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Pulled', type: 'Normal', message: 'ok', count: 3, lastTimestamp: ago(M), firstTimestamp: ago(2 * M) };
    assert.deepEqual(cellsOf('events.k8s.io/v1/Event', core), cellsOf('v1/Event', core));
  });
  it('without any timestamp', () => {
    const r = row('v1/Event', { metadata: { name: 'x' }, involvedObject: {} });
    assert.deepEqual([r['Last Seen'], r['First Seen'], r.Object, r.Source], ['<unknown>', '<unknown>', '', '']);
  });
});

describe('configmaps, secrets, serviceaccounts, namespaces', () => {
  it('counts data', () => {
    assert.deepEqual(cellsOf('v1/ConfigMap', { metadata: { name: 'kube-root-ca.crt', creationTimestamp: ago(45 * S) }, data: { 'ca.crt': 'x' }, binaryData: { b: 'eA==' } }), ['kube-root-ca.crt', 2, '45s']);
    assert.deepEqual(cellsOf('v1/ConfigMap', { metadata: { name: 'empty' } }), ['empty', 0, '<unknown>']);
    assert.deepEqual(cellsOf('v1/Secret', { metadata: { name: 'tls', creationTimestamp: ago(M) }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } }), ['tls', 'kubernetes.io/tls', 2, '60s']);
    assert.deepEqual(cellsOf('v1/ServiceAccount', { metadata: { name: 'default', creationTimestamp: ago(M) } }), ['default', 0, '60s']);
    assert.deepEqual(cellsOf('v1/ServiceAccount', { metadata: { name: 'old' }, secrets: [{ name: 'old-token' }] })[1], 1);
  });
  it('namespace phase', () => {
    assert.deepEqual(cellsOf('v1/Namespace', { metadata: { name: 'kube-system', creationTimestamp: ago(8 * D) }, status: { phase: 'Active' } }), ['kube-system', 'Active', '8d']);
    assert.equal(row('v1/Namespace', { metadata: { name: 'gone', deletionTimestamp: ago(S) }, status: { phase: 'Terminating' } }).Status, 'Terminating');
  });
});

describe('storage', () => {
  it('a bound PersistentVolume', () => {
    const pv = {
      metadata: { name: 'pv-1', creationTimestamp: ago(3 * D) },
      spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'standard', claimRef: { namespace: 'default', name: 'data' }, volumeMode: 'Filesystem' },
      status: { phase: 'Bound' },
    };
    assert.deepEqual(cellsOf('v1/PersistentVolume', pv), ['pv-1', '10Gi', 'RWO,RWX', 'Retain', 'Bound', 'default/data', 'standard', '<unset>', '', '3d', 'Filesystem']);
  });
  it('a released PersistentVolume being deleted, class from the beta annotation', () => {
    const pv = {
      metadata: { name: 'pv-2', deletionTimestamp: ago(S), annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } },
      spec: { accessModes: ['ReadOnlyMany', 'ReadWriteOncePod'], persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'fast', volumeAttributesClassName: 'gold' },
      status: { phase: 'Released', reason: 'x' },
    };
    assert.deepEqual(cellsOf('v1/PersistentVolume', pv), ['pv-2', '0', 'ROX,RWOP', 'Delete', 'Terminating', '', 'slow', 'gold', 'x', '<unknown>', '<unset>']);
  });
  it('claims, pending and bound', () => {
    const pending = { metadata: { name: 'data', creationTimestamp: ago(M) }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'standard' }, status: { phase: 'Pending' } };
    assert.deepEqual(cellsOf('v1/PersistentVolumeClaim', pending), ['data', 'Pending', '', '', '', 'standard', '<unset>', '60s', '<unset>']);
    const bound = {
      metadata: { name: 'data', creationTimestamp: ago(M) },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'pvc-123', volumeMode: 'Block' },
      status: { phase: 'Bound', capacity: { storage: '2048Mi' }, accessModes: ['ReadWriteOnce'] },
    };
    assert.deepEqual(cellsOf('v1/PersistentVolumeClaim', bound), ['data', 'Bound', 'pvc-123', '2Gi', 'RWO', '', '<unset>', '60s', 'Block']);
  });
  it('storage classes', () => {
    const def = { metadata: { name: 'local-path', creationTimestamp: ago(D), annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'rancher.io/local-path', reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' };
    assert.deepEqual(cellsOf('storage.k8s.io/v1/StorageClass', def), ['local-path (default)', 'rancher.io/local-path', 'Delete', 'WaitForFirstConsumer', false, '24h']);
    const plain = { metadata: { name: 'fast', annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'false' } }, provisioner: 'csi.example.com', reclaimPolicy: 'Retain', allowVolumeExpansion: true };
    assert.deepEqual(cellsOf('storage.k8s.io/v1/StorageClass', plain).slice(0, 5), ['fast', 'csi.example.com', 'Retain', 'Immediate', true]);
  });
});

describe('leases and certificate signing requests', () => {
  it('lease holder', () => {
    assert.deepEqual(cellsOf('coordination.k8s.io/v1/Lease', { metadata: { name: 'node-1', creationTimestamp: ago(H) }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40 } }), ['node-1', 'node-1', '60m']);
    assert.deepEqual(cellsOf('coordination.k8s.io/v1/Lease', { metadata: { name: 'free' }, spec: {} }).slice(0, 2), ['free', '']);
  });
  const csr = (spec: object, status: object = {}) => ({ metadata: { name: 'csr-abc', creationTimestamp: ago(10 * S) }, spec: { request: 'LS0t', usages: ['client auth'], ...spec }, status });
  const cases: { name: string; obj: object; want: unknown[] }[] = [
    {
      name: 'pending',
      obj: csr({ signerName: 'kubernetes.io/kube-apiserver-client-kubelet', username: 'system:bootstrap:abcdef' }),
      want: ['csr-abc', '10s', 'kubernetes.io/kube-apiserver-client-kubelet', 'system:bootstrap:abcdef', '<none>', 'Pending'],
    },
    {
      name: 'approved and issued, with a duration',
      obj: csr({ signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice', expirationSeconds: 86400 }, { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'LS0t' }),
      want: ['csr-abc', '10s', 'kubernetes.io/kube-apiserver-client', 'alice', '24h', 'Approved,Issued'],
    },
    {
      name: 'denied wins over approved, failed appended',
      obj: csr({ signerName: '', username: 'bob', expirationSeconds: 600 }, { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }, { type: 'Failed', status: 'True' }] }),
      want: ['csr-abc', '10s', '<none>', 'bob', '10m', 'Denied,Failed'],
    },
  ];
  for (const c of cases) it(`csr ${c.name}`, () => assert.deepEqual(cellsOf('certificates.k8s.io/v1/CertificateSigningRequest', c.obj), c.want));
});

describe('printTable', () => {
  it('prints kinds without a printer as NAME and CREATED AT (RFC 3339, UTC)', () => {
    const t = printTable('rbac.authorization.k8s.io/v1/ClusterRole', [
      { metadata: { name: 'admin', creationTimestamp: '2024-05-01T10:20:30Z' } },
      { metadata: { name: 'odd', creationTimestamp: '2024-05-01T12:20:30+02:00' } },
      { metadata: { name: 'new' } },
    ], { now });
    assert.deepEqual(t.rows.map((r) => r.cells), [['admin', '2024-05-01T10:20:30Z'], ['odd', '2024-05-01T10:20:30Z'], ['new', '0001-01-01T00:00:00Z']]);
  });
  it('keeps one row per object in order', () => {
    const t = printTable('v1/ConfigMap', [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }], { now });
    assert.deepEqual(t.rows.map((r) => r.cells[0]), ['a', 'b']);
  });
  it('wide: false drops the priority-1 columns and their cells, wherever they sit', () => {
    const ev = { metadata: { name: 'x' }, involvedObject: { kind: 'Pod', name: 'p', fieldPath: 'f' }, reason: 'R', type: 'Normal', message: 'm', lastTimestamp: ago(M), firstTimestamp: ago(M), count: 2 };
    const t = printTable('v1/Event', [ev], { now, wide: false });
    assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
    assert.deepEqual(t.rows[0].cells, ['60s', 'Normal', 'R', 'pod/p', 'm']);
    assert.equal(printTable('v1/Event', [ev], { now }).columnDefinitions.length, 10);
  });
  it('cells match the column count for every printer', () => {
    const keys = ['v1/Pod', 'v1/Node', 'apps/v1/DaemonSet', 'apps/v1/StatefulSet', 'apps/v1/Deployment', 'apps/v1/ReplicaSet', 'apps/v1/ControllerRevision',
      'v1/Service', 'v1/Endpoints', 'v1/Event', 'events.k8s.io/v1/Event', 'v1/ConfigMap', 'v1/Secret', 'v1/ServiceAccount', 'v1/Namespace',
      'v1/PersistentVolume', 'v1/PersistentVolumeClaim', 'coordination.k8s.io/v1/Lease', 'certificates.k8s.io/v1/CertificateSigningRequest',
      'storage.k8s.io/v1/StorageClass', 'v1/Unknown'];
    for (const key of keys) {
      const t = printTable(key, [{ metadata: { name: 'm' } }], { now });
      assert.equal(t.rows[0].cells.length, t.columnDefinitions.length, key);
    }
  });
});
