/**
 * The kubectl Quick Reference (kubernetes.io/docs/reference/kubectl/quick-reference/)
 * on `npm start`'s simulated nodes, with the real kubectl 1.32: the commands
 * that answered unlike upstream when walked section by section, each sent as
 * the page writes it (the pod, container and directory names are the page's).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { eventually } from './harness.js';
import { killChild, kubectlPortForward } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';

describe('the kubectl Quick Reference on npm start\'s simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const getPod = async (name: string, ns = 'default'): Promise<Pod> => JSON.parse((await kubectl(['get', 'pod', name, '-n', ns, '-o', 'json'])).stdout) as Pod;
  const running = (name: string, ns = 'default') => eventually(async () => (await getPod(name, ns)).status?.containerStatuses?.every((c) => c.state?.running && c.ready), 60_000, `${ns}/${name} running`);
  const events = async (name: string) => (await kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message', '--no-headers'])).stdout;

  before(async () => {
    up = await startUp('k8ts-e2e-quick-reference-');
  });
  after(async () => { await up?.close(); });

  it('"Rolling update www containers of frontend deployment": set image www=image:v2 stalls on ErrImagePull as on Docker Hub, rollout undo brings it back', async () => {
    const deployment = (await kubectl(['create', 'deployment', 'frontend', '--image=nginx:1.27', '--replicas=2', '--dry-run=client', '-o', 'json'])).stdout;
    const renamed = deployment.replace('"name": "nginx"', '"name": "www"');
    await kubectl(['apply', '-f', '-'], renamed);
    await kubectl(['rollout', 'status', '-w', 'deployment/frontend', '--timeout=60s']);
    assert.equal((await kubectl(['set', 'image', 'deployment/frontend', 'www=image:v2'])).stdout, 'deployment.apps/frontend image updated\n');
    const waiting = await eventually(async () => {
      const pods = JSON.parse((await kubectl(['get', 'pods', '-l', 'app=frontend', '-o', 'json'])).stdout).items as Pod[];
      // ContainerCreating comes first (the simulated node takes as long as a real one to start a container), then the pull's failure.
      return pods.map((p) => p.status?.containerStatuses?.[0]).find((c) => c?.image === 'image:v2' && c.state?.waiting && c.state.waiting.reason !== 'ContainerCreating');
    }, 60_000, 'a new pod waiting for image:v2 past ContainerCreating');
    assert.match(waiting.state!.waiting!.reason!, /^(ErrImagePull|ImagePullBackOff)$/);
    const failed = await eventually(async () => (await kubectl(['get', 'events', '--field-selector', 'reason=Failed', '-o', 'jsonpath={.items[*].message}'])).stdout.match(/Failed to pull image "image:v2": [^\n]*?insufficient_scope: authorization failed/)?.[0], 60_000, 'the pull failure event');
    assert.match(failed, /pull access denied, repository does not exist or may require authorization/);
    const status = await kubectl(['rollout', 'status', 'deployment/frontend', '--watch=false']);
    assert.equal(status.stdout, 'Waiting for deployment "frontend" rollout to finish: 1 out of 2 new replicas have been updated...\n');
    assert.match((await kubectl(['rollout', 'history', 'deployment/frontend'])).stdout, /REVISION +CHANGE-CAUSE\n1 +<none>\n2 +<none>\n/);
    assert.equal((await kubectl(['rollout', 'undo', 'deployment/frontend'])).stdout, 'deployment.apps/frontend rolled back\n');
    assert.match((await kubectl(['rollout', 'status', '-w', 'deployment/frontend', '--timeout=60s'])).stdout, /deployment "frontend" successfully rolled out\n$/);
  });

  it('"Update a single-container pod\'s image version (tag) to v4": get -o yaml | sed | replace restarts the container with myimage:v4', async () => {
    await kubectl(['run', 'mypod', '--image=myimage:v3']);
    await running('mypod');
    const before = (await getPod('mypod')).status!.containerStatuses![0]!;
    const yaml = (await kubectl(['get', 'pod', 'mypod', '-o', 'yaml'])).stdout;
    // The page's sed: s/\(image: myimage\):.*$/\1:v4/
    const edited = yaml.split('\n').map((l) => l.replace(/(image: myimage):.*$/, '$1:v4')).join('\n');
    assert.match((await kubectl(['replace', '-f', '-'], edited)).stdout, /^pod\/mypod replaced\n$/);
    const now = await eventually(async () => {
      const s = (await getPod('mypod')).status?.containerStatuses?.[0];
      return s?.image === 'docker.io/library/myimage:v4' && s.state?.running && s;
    }, 60_000, 'mypod running myimage:v4');
    assert.equal(now.restartCount, 1);
    assert.notEqual(now.containerID, before.containerID);
    assert.equal(now.lastState?.terminated?.containerID, before.containerID);
    const ev = await eventually(async () => { const e = await events('mypod'); return e.includes('Killing') && e; }, 60_000, 'the Killing event');
    assert.match(ev, /Normal +Killing +Container mypod definition changed, will be restarted\n/);
    // The node's first use of myimage:v4 (IfNotPresent, a tag): the kubelet pulls it before the new instance starts.
    assert.match(ev, /Normal +Pulling +Pulling image "myimage:v4"\n/);
    assert.match(ev, /Normal +Pulled +Successfully pulled image "myimage:v4" in 0s \(0s including waiting\)\. Image size: \d+ bytes\.\n/);
    assert.match((await kubectl(['get', 'pod', 'mypod'])).stdout, /\nmypod +1\/1 +Running +1 \(\d+s ago\) /);
  });

  it('"Update a container\'s image": the strategic patch to "new image" leaves the container waiting InvalidImageName; the json patch then changes nothing', async () => {
    const overrides = { spec: { containers: [{ name: 'kubernetes-serve-hostname', image: 'registry.k8s.io/serve_hostname' }] } };
    await kubectl(['run', 'valid-pod', '--image=registry.k8s.io/serve_hostname', `--overrides=${JSON.stringify(overrides)}`]);
    await running('valid-pod');
    const patched = await kubectl(['patch', 'pod', 'valid-pod', '-p', '{"spec":{"containers":[{"name":"kubernetes-serve-hostname","image":"new image"}]}}']);
    assert.equal(patched.stdout, 'pod/valid-pod patched\n');
    const message = 'Failed to apply default image tag "new image": couldn\'t parse image name "new image": invalid reference format';
    const waiting = await eventually(async () => {
      const s = (await getPod('valid-pod')).status?.containerStatuses?.[0];
      return s?.state?.waiting?.reason === 'InvalidImageName' && s;
    }, 60_000, 'InvalidImageName');
    assert.equal(waiting.state!.waiting!.message, message);
    assert.equal(waiting.ready, false);
    assert.equal(waiting.lastState?.terminated?.exitCode, 0);
    assert.match((await kubectl(['get', 'pod', 'valid-pod'])).stdout, /\nvalid-pod +0\/1 +InvalidImageName +0 +/);
    const ev = await eventually(async () => { const e = await events('valid-pod'); return e.includes('InvalidImageName') && e; }, 60_000, 'the InvalidImageName events');
    assert.match(ev, /Normal +Killing +Container kubernetes-serve-hostname definition changed, will be restarted\n/);
    assert.ok(ev.split('\n').some((l) => /^Warning +InspectFailed +/.test(l) && l.endsWith(message)), ev);
    assert.match(ev, /Warning +Failed +Error: InvalidImageName\n/);
    const json = await kubectl(['patch', 'pod', 'valid-pod', '--type=json', '-p=[{"op": "replace", "path": "/spec/containers/0/image", "value":"new image"}]']);
    assert.equal(json.stdout, 'pod/valid-pod patched (no change)\n');
    // And a valid image starts it again, one restart counted.
    await kubectl(['set', 'image', 'pod/valid-pod', 'kubernetes-serve-hostname=registry.k8s.io/serve_hostname:1.1']);
    const again = await eventually(async () => {
      const s = (await getPod('valid-pod')).status?.containerStatuses?.[0];
      return s?.state?.running && s;
    }, 60_000, 'valid-pod running again');
    assert.deepEqual([again.image, again.restartCount], ['registry.k8s.io/serve_hostname:1.1', 1]);
  });

  it('"dump Pod logs for a Deployment": kubectl logs deploy/my-deployment shows nginx\'s entrypoint, and an access-log line per request through port-forward deploy/', async () => {
    await kubectl(['create', 'deployment', 'my-deployment', '--image=nginx', '--port=80']);
    await kubectl(['rollout', 'status', 'deployment/my-deployment', '--timeout=60s']);
    const logs = await eventually(async () => {
      const out = (await kubectl(['logs', 'deploy/my-deployment'])).stdout;
      return out.includes('start worker processes') && out;
    }, 60_000, 'nginx\'s start log');
    assert.match(logs, /^\/docker-entrypoint\.sh: \/docker-entrypoint\.d\/ is not empty, will attempt to perform configuration\n/);
    assert.match(logs, /\n\/docker-entrypoint\.sh: Configuration complete; ready for start up\n/);
    assert.match(logs, /\n\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d \[notice\] 1#1: nginx\/1\.27\.3\n/);
    assert.doesNotMatch(logs, /Created container|Started container/);
    // kubectl port-forward deploy/my-deployment 5000:6000 on the page; here a free local port to nginx's 80.
    const pf = await kubectlPortForward(up.kubeconfig, ['deploy/my-deployment', ':80']);
    try {
      assert.match(pf.out(), new RegExp(`Forwarding from 127\\.0\\.0\\.1:${pf.port} -> 80`));
      const res = await fetch(`http://127.0.0.1:${pf.port}/`, { headers: { 'User-Agent': 'quick-reference/1.0' } });
      assert.equal(res.status, 200);
      await res.text();
      const line = await eventually(async () => (await kubectl(['logs', 'deploy/my-deployment', '--tail=1'])).stdout.match(/^127\.0\.0\.1 - - .*\n$/)?.[0], 60_000, 'the access-log line');
      assert.match(line, /^127\.0\.0\.1 - - \[\d\d\/\w{3}\/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET \/ HTTP\/1\.1" 200 615 "-" "quick-reference\/1\.0" "-"\n$/);
    } finally {
      await killChild(pf.child);
    }
  });

  it('"dump pod logs for a previous instantiation of a container": after set image on an nginx pod, logs --previous is the old nginx\'s start and SIGQUIT shutdown', async () => {
    await kubectl(['run', 'my-pod', '--image=nginx:1.26.2']);
    await running('my-pod');
    await kubectl(['set', 'image', 'pod/my-pod', 'my-pod=nginx:1.27.3']);
    await eventually(async () => (await getPod('my-pod')).status?.containerStatuses?.[0]?.restartCount === 1, 60_000, 'the restart');
    const previous = (await kubectl(['logs', 'my-pod', '--previous'])).stdout;
    assert.match(previous, /\[notice\] 1#1: nginx\/1\.26\.2\n/);
    assert.match(previous, /\[notice\] 1#1: signal 3 \(SIGQUIT\) received, shutting down\n/);
    assert.match(previous, /\[notice\] 1#1: exit\n$/);
    assert.doesNotMatch(previous, /Stopping container|Container my-pod exited/);
    const current = await eventually(async () => { const out = (await kubectl(['logs', 'my-pod'])).stdout; return out.includes('start worker processes') && out; }, 60_000, 'the new instance\'s log');
    assert.match(current, /\[notice\] 1#1: nginx\/1\.27\.3\n/);
    assert.doesNotMatch(current, /SIGQUIT/);
  });

  it('"Copy /tmp/foo local file to /tmp/bar in a remote pod" with tar through exec: -C names a directory that must exist, as busybox\'s tar', async () => {
    const local = mkdtempSync(join(tmpdir(), 'k8ts-quickref-tar-'));
    try {
      await kubectl(['create', 'namespace', 'my-namespace']);
      await kubectl(['run', 'my-pod', '-n', 'my-namespace', '--image=busybox:1.28', '--', 'sleep', '1000000']);
      await running('my-pod', 'my-namespace');
      mkdirSync(join(local, 'tmp'));
      writeFileSync(join(local, 'tmp', 'foo'), 'foo contents\n');
      // `tar cf - /tmp/foo` run from the local root: members named tmp/foo, as GNU tar names them.
      const archive = execFileSync('tar', ['cf', '-', '-C', local, 'tmp/foo']).toString('latin1');
      const missing = await kubectl(['exec', '-i', '-n', 'my-namespace', 'my-pod', '--', 'tar', 'xf', '-', '-C', '/tmp/bar'], archive, true);
      assert.equal(missing.code, 1);
      assert.equal(missing.stderr, "tar: can't change directory to '/tmp/bar': No such file or directory\ncommand terminated with exit code 1\n");
      await kubectl(['exec', '-n', 'my-namespace', 'my-pod', '--', 'mkdir', '/tmp/bar']);
      const ok = await kubectl(['exec', '-i', '-n', 'my-namespace', 'my-pod', '--', 'tar', 'xf', '-', '-C', '/tmp/bar'], archive);
      assert.equal(ok.stderr, '');
      assert.equal((await kubectl(['exec', '-n', 'my-namespace', 'my-pod', '--', 'cat', '/tmp/bar/tmp/foo'])).stdout, 'foo contents\n');
      const file = await kubectl(['exec', '-i', '-n', 'my-namespace', 'my-pod', '--', 'tar', 'xf', '-', '-C', '/tmp/bar/tmp/foo'], archive, true);
      assert.equal(file.stderr, "tar: can't change directory to '/tmp/bar/tmp/foo': Not a directory\ncommand terminated with exit code 1\n");
      // "Copy /tmp/foo from a remote pod to /tmp/bar locally": kubectl exec ... -- tar cf - /tmp/foo | tar xf - -C /tmp/bar
      await kubectl(['exec', '-n', 'my-namespace', 'my-pod', '--', 'cp', '/tmp/bar/tmp/foo', '/tmp/foo']);
      const out = await kubectl(['exec', '-n', 'my-namespace', 'my-pod', '--', 'tar', 'cf', '-', '/tmp/foo']);
      assert.equal(out.stderr, "tar: removing leading '/' from member names\n");
      mkdirSync(join(local, 'bar'));
      execFileSync('tar', ['xf', '-', '-C', join(local, 'bar')], { input: Buffer.from(out.stdout, 'latin1') });
      assert.equal(readFileSync(join(local, 'bar', 'tmp', 'foo'), 'utf8'), 'foo contents\n');
    } finally {
      rmSync(local, { recursive: true, force: true });
    }
  });
});
