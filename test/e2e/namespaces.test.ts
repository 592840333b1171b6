/**
 * Namespace deletion removes the namespace's content: the namespace goes
 * Terminating (watched, not polled), refuses new content, stays while an
 * object holds a finalizer, and disappears with everything in it. The
 * cluster's own namespaces may not be deleted (upstream's NamespaceLifecycle).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, Cluster } from './harness.js';
import { apiServerOnly, killChild, lineReader } from './helpers.js';

let cluster: Cluster;

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); });

const content = (ns: string, holdFinalizer: boolean) => `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
${holdFinalizer ? '  finalizers: [example.com/hold]\n' : ''}data:
  a: "1"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: more-settings
  namespace: ${ns}
data:
  b: "2"
---
apiVersion: v1
kind: Pod
metadata:
  name: unscheduled
  namespace: ${ns}
spec:
  containers:
  - name: c
    image: nginx
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: ${ns}
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: monitoring-agent:latest
`;

/** Watches one namespace from `rv`; each line is "<TYPE> <phase> <deletionTimestamp set>". */
function watchNamespace(ns: string, rv: string) {
  const child = cluster.spawnKubectl(['get', '--raw', `/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3D${ns}&resourceVersion=${rv}&timeoutSeconds=30`]);
  const out = lineReader(child);
  const events = () => out.lines.filter(Boolean).map((l) => {
    const ev = JSON.parse(l);
    return `${ev.type} ${ev.object.status?.phase} ${!!ev.object.metadata.deletionTimestamp}`;
  });
  return { child, out, events };
}

const namesIn = async (ns: string) =>
  (await cluster.kubectl(['get', 'configmaps,pods,daemonsets', '-n', ns, '-o', 'name'])).stdout;

describe('namespace deletion', () => {
  test('a namespace with configmaps, a pod and a daemonset goes Terminating, then disappears with its content', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: content('doomed', false) });
    assert.equal(await namesIn('doomed'), 'configmap/more-settings\nconfigmap/settings\npod/unscheduled\ndaemonset.apps/agent\n');
    const rv = JSON.parse((await cluster.kubectl(['get', 'namespace', 'doomed', '-o', 'json'])).stdout).metadata.resourceVersion;
    const watch = watchNamespace('doomed', rv);
    try {
      assert.equal((await cluster.kubectl(['delete', 'namespace', 'doomed', '--wait=false'])).stdout, 'namespace "doomed" deleted\n');
      await watch.out.waitFor((l) => l.includes('"type":"DELETED"'), 'the namespace to be deleted');
      const events = watch.events();
      assert.equal(events[0], 'MODIFIED Terminating true');
      assert.equal(events[events.length - 1], 'DELETED Terminating true');
      assert.ok(events.every((e) => e.endsWith('Terminating true')), events.join('\n'));
    } finally {
      await killChild(watch.child);
    }
    const gone = await cluster.kubectl(['get', 'namespace', 'doomed'], { allowFail: true });
    assert.equal(gone.stderr, 'Error from server (NotFound): namespaces "doomed" not found\n');
    const left = await cluster.kubectl(['get', 'configmaps,pods,daemonsets', '-n', 'doomed']);
    assert.equal(left.stdout, '');
    assert.equal(left.stderr, 'No resources found in doomed namespace.\n');
    const raw = JSON.parse((await cluster.kubectl(['get', '--raw', '/api/v1/configmaps'])).stdout);
    assert.deepEqual(raw.items.filter((cm: any) => cm.metadata.namespace === 'doomed'), []);
  });

  test('a Terminating namespace refuses new content and waits for finalizers', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: content('held', true) });
    await cluster.kubectl(['delete', 'namespace', 'held', '--wait=false']);
    // The finalizer keeps "settings" (and so the namespace) until it is removed.
    const ns = JSON.parse((await cluster.kubectl(['get', 'namespace', 'held', '-o', 'json'])).stdout);
    assert.equal(ns.status.phase, 'Terminating');
    assert.ok(ns.metadata.deletionTimestamp);
    const [header, row] = (await cluster.kubectl(['get', 'namespace', 'held'])).stdout.trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(header, ['NAME', 'STATUS', 'AGE']);
    assert.deepEqual(row.slice(0, 2), ['held', 'Terminating']);

    const refused = await cluster.kubectl(['create', '-f', '-'], {
      allowFail: true, input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: late\n  namespace: held\n',
    });
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'Error from server (Forbidden): error when creating "STDIN": configmaps "late" is forbidden: unable to create new content in namespace held because it is being terminated\n');

    // The namespace's content goes, except the object whose finalizer holds it (marked for deletion).
    await eventually(async () => (await namesIn('held')) === 'configmap/settings\n', 10_000, 'the unheld content to go');
    const settings = JSON.parse((await cluster.kubectl(['get', 'configmap', 'settings', '-n', 'held', '-o', 'json'])).stdout);
    assert.ok(settings.metadata.deletionTimestamp, 'the held object is marked for deletion');
    assert.equal((await cluster.kubectl(['get', 'namespace', 'held', '-o', 'jsonpath={.status.phase}'])).stdout, 'Terminating');

    const watch = watchNamespace('held', ns.metadata.resourceVersion);
    try {
      await cluster.kubectl(['patch', 'configmap', 'settings', '-n', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      await watch.out.waitFor((l) => l.includes('"type":"DELETED"'), 'the namespace to go once the finalizer is removed');
    } finally {
      await killChild(watch.child);
    }
    assert.equal((await cluster.kubectl(['get', 'namespaces', 'held', '--ignore-not-found'])).stdout, '');
  });

  test('default, kube-system and kube-public may not be deleted, a user namespace among them still goes', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      const refused = await cluster.kubectl(['delete', 'namespace', ns, '--wait=false'], { allowFail: true });
      assert.equal(refused.code, 1);
      assert.equal(refused.stderr, `Error from server (Forbidden): namespaces "${ns}" is forbidden: this namespace may not be deleted\n`);
    }
    const dryRun = await cluster.kubectl(['delete', 'namespace', 'default', '--dry-run=server'], { allowFail: true });
    assert.equal(dryRun.stderr, 'Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted\n');
    // upstream test/cmd deletes every namespace with --all: the immortal ones refuse, the others go.
    await cluster.kubectl(['create', 'namespace', 'mortal']);
    const all = await cluster.kubectl(['delete', 'namespace', '--all', '--wait=false'], { allowFail: true });
    assert.equal(all.code, 1);
    assert.match(all.stdout, /namespace "mortal" deleted/);
    assert.match(all.stderr, /namespaces "kube-system" is forbidden: this namespace may not be deleted/);
    const raw = (await cluster.kubectl(['get', 'namespaces', 'default', 'kube-system', 'kube-public', '-o', 'jsonpath={.items[*].status.phase}'])).stdout;
    assert.equal(raw, 'Active Active Active');
  });
});
