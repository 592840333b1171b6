/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32 on
 * `npm start`'s simulated nodes, where k8ts once answered unlike upstream:
 *  - Adopting Sidecar Containers: `kubectl get --raw /metrics | grep
 *    kubernetes_feature_enabled | grep SidecarContainers` found nothing, and
 *    the node's `/api/v1/nodes/NODE/proxy/metrics` was 404: neither the API
 *    server nor the kubelet had component-base's kubernetes_feature_enabled
 *    gauge; now both print `kubernetes_feature_enabled{name="SidecarContainers",stage="BETA"} 1`;
 *  - Debug Running Pods, copying a pod while changing its command: a copy
 *    made with `--attach=false` (no stdin) ran its bare `sh` for ever under
 *    restartPolicy Always, where the shell reads EOF, exits 0 and the copy
 *    crash-loops; the profiles' `grep Cap /proc/$$/status` at the debug
 *    container's prompt was refused (`special parameter $$`) and no
 *    /proc/PID/status but PID 1's existed; now `$$` is the shell's PID (as ps
 *    lists it) and its status shows the sysadmin profile's full capability
 *    sets, 000001ffffffffff.
 * Walked and answering as upstream already, checked here so they stay so:
 * List All Container Images Running in a Cluster (`{..image}` with the
 * statuses' normalized names, `range`, -l, --namespace, go-template), Debug
 * Pods (a misspelled field refused by strict decoding, also under
 * --dry-run=server; --validate=ignore creates the pod) and the rest of Debug
 * Running Pods (nginx-with-request described, the crashing `false` pod,
 * --set-image, the custom profile).
 * Use an Image Volume with a Pod, once refused as an unknown field, is walked
 * in up-tutorials-pages16.
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { eventually } from './harness.js';
import { underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages15-manifests.js';

describe('k8ts up: the Adopting Sidecar Containers, List All Container Images, Debug Pods and Debug Running Pods pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const terminal = (command: string, input: string[]) => underTerminal(`kubectl --kubeconfig ${up.kubeconfig} ${command}`, input, 120_000);
  const waitReady = (...pods: string[]) => kubectl(['wait', '--for=condition=Ready', ...pods.map((p) => `pod/${p}`), '--timeout=120s']);
  const pod = async (name: string) => JSON.parse(await out(['get', 'pod', name, '-o', 'json'])) as Pod;

  before(async () => { up = await startUp('k8ts-e2e-tut-pages15-'); });
  after(async () => { await up?.close(); });

  it('Adopting Sidecar Containers: the SidecarContainers gate, BETA and on, in the API server\'s and a node\'s /metrics', async () => {
    const gate = (text: string) => text.split('\n').filter((l) => l.includes('kubernetes_feature_enabled') && l.includes('SidecarContainers'));
    const server = await out(['get', '--raw', '/metrics']);
    assert.deepEqual(gate(server), ['kubernetes_feature_enabled{name="SidecarContainers",stage="BETA"} 1']);
    assert.match(server, /^# TYPE kubernetes_feature_enabled gauge$/m);
    const node = (await out(['get', 'nodes', '-o', 'name'])).split('\n').find((n) => n.startsWith('node/worker'))!.slice('node/'.length);
    const kubelet = await out(['get', '--raw', `/api/v1/nodes/${node}/proxy/metrics`]);
    assert.deepEqual(gate(kubelet), ['kubernetes_feature_enabled{name="SidecarContainers",stage="BETA"} 1']);
    assert.match(kubelet, /^# HELP kubernetes_feature_enabled \[BETA\] This metric records the data about the stage and enablement of a k8s feature\.$/m);
    // A gate 1.32 leaves off says so: its fields are dropped (resizePolicy).
    assert.match(kubelet, /^kubernetes_feature_enabled\{name="InPlacePodVerticalScaling",stage="ALPHA"\} 0$/m);
  });

  it('List All Container Images Running in a Cluster: {..image} with the statuses\' names, range, -l, --namespace, go-template', async () => {
    assert.equal(await out(['create', 'deployment', 'nginx', '--image=nginx:1.14.2', '--replicas=2']), 'deployment.apps/nginx created\n');
    assert.match(await out(['rollout', 'status', 'deployment/nginx', '--timeout=5m']), /successfully rolled out/);
    // kubectl get pods --all-namespaces -o jsonpath="{..image}" | tr -s '[[:space:]]' '\n' | sort | uniq -c
    const counts = (text: string) => { const c = new Map<string, number>(); for (const w of text.split(/\s+/).filter(Boolean)) c.set(w, (c.get(w) ?? 0) + 1); return c; };
    const all = counts(await out(['get', 'pods', '--all-namespaces', '-o', 'jsonpath={..image}']));
    // The spec's image as written, the status's as the runtime normalized it.
    assert.equal(all.get('nginx:1.14.2'), 2);
    assert.equal(all.get('docker.io/library/nginx:1.14.2'), 2);
    assert.deepEqual([...counts(await out(['get', 'pods', '--all-namespaces', '-o=jsonpath={..image}', '-l', 'app=nginx'])).entries()].sort(),
      [['docker.io/library/nginx:1.14.2', 2], ['nginx:1.14.2', 2]]);
    const specs = (await out(['get', 'pods', '--all-namespaces', '-o', 'jsonpath={.items[*].spec.containers[*].image}'])).split(' ');
    assert.equal(specs.filter((i) => i === 'nginx:1.14.2').length, 2);
    assert.ok(!specs.includes('docker.io/library/nginx:1.14.2'));
    const byPod = (await out(['get', 'pods', '--all-namespaces', '-o=jsonpath={range .items[*]}{"\\n"}{.metadata.name}{":\\t"}{range .spec.containers[*]}{.image}{", "}{end}{end}'])).split('\n').sort();
    assert.equal(byPod.filter((l) => /^nginx-[a-z0-9]+-[a-z0-9]{5}:\tnginx:1\.14\.2, $/.test(l)).length, 2);
    const system = await out(['get', 'pods', '--namespace', 'kube-system', '-o', 'jsonpath={..image}']);
    assert.ok(system.length > 0 && !system.includes('nginx'));
    const template = await out(['get', 'pods', '--all-namespaces', '-o', 'go-template', '--template={{range .items}}{{range .spec.containers}}{{.image}} {{end}}{{end}}']);
    assert.match(template, /^nginx:1\.14\.2 nginx:1\.14\.2 \S/);
    await kubectl(['delete', 'deployment', 'nginx']);
  });

  it('Debug Pods: a misspelled field is refused by strict decoding (also under --dry-run=server); --validate=ignore creates the pod without it', async () => {
    const mypod = file('mypod.yaml', m.mypodMisspelled);
    const refused = `Error from server (BadRequest): error when creating "${mypod}": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].commnd"\n`;
    const applied = await kubectl(['apply', '-f', mypod], undefined, true);
    assert.equal(applied.code, 1);
    assert.equal(applied.stderr, refused);
    const dry = await kubectl(['apply', '-f', mypod, '--dry-run=server'], undefined, true);
    assert.equal(dry.code, 1);
    assert.equal(dry.stderr, refused);
    assert.equal(await out(['apply', '--validate=ignore', '-f', mypod]), 'pod/mypod created\n');
    assert.equal((await pod('mypod')).spec!.containers[0]!.command, undefined);
    await kubectl(['delete', 'pod', 'mypod', '--wait=false']);
  });

  it('Debug Running Pods: nginx-with-request\'s pods described with their limits, requests, QoS class and events', async () => {
    assert.equal(await out(['apply', '-f', file('nginx-with-request.yaml', m.nginxWithRequest)]), 'deployment.apps/nginx-deployment created\n');
    await kubectl(['rollout', 'status', 'deployment/nginx-deployment', '--timeout=5m']);
    const pods = (await out(['get', 'pods', '-l', 'app=nginx'])).split('\n');
    assert.match(pods[0]!, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    assert.equal(pods.filter((l) => /^nginx-deployment-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s/.test(l)).length, 2);
    const name = pods[1]!.split(/\s+/)[0]!;
    const described = await eventually(async () => {
      const d = await out(['describe', 'pod', name]);
      return /Started container nginx/.test(d) ? d : undefined;
    }, 120_000, 'the Started event in describe');
    assert.match(described, /\n {4}Port: {11}80\/TCP\n {4}Host Port: {6}0\/TCP\n {4}State: {10}Running\n/);
    assert.match(described, /\n {4}Limits:\n {6}cpu: {5}500m\n {6}memory: {2}128Mi\n {4}Requests:\n {6}cpu: {8}500m\n {6}memory: {5}128Mi\n/);
    assert.match(described, /\nQoS Class: {19}Guaranteed\n/);
    assert.match(described, /\nTolerations: {17}node\.kubernetes\.io\/not-ready:NoExecute op=Exists for 300s\n {29}node\.kubernetes\.io\/unreachable:NoExecute op=Exists for 300s\n/);
    for (const line of [/Normal {2}Scheduled .* default-scheduler {2}Successfully assigned default\/nginx-deployment-\S+ to \S+\n/, /Normal {2}Pulling .* kubelet {12}Pulling image "nginx"\n/,
      /Normal {2}Pulled .* kubelet {12}Successfully pulled image "nginx" in /, /Normal {2}Created .* kubelet {12}Created container nginx\n/, /Normal {2}Started .* kubelet {12}Started container nginx\n/]) {
      assert.match(described, line);
    }
    const yaml = await out(['get', 'pod', name, '-o', 'yaml']);
    assert.match(yaml, /\n {2}qosClass: Guaranteed\n/);
    assert.match(yaml, /\n {2}- image: nginx\n {4}imagePullPolicy: Always\n/);
    await kubectl(['delete', 'deployment', 'nginx-deployment']);
  });

  it('Debug Running Pods: the crashing `false` pod, its copy with an interactive sh, a copy without stdin crash-looping, --set-image', async () => {
    assert.equal(await out(['run', '--image=busybox:1.28', 'myapp', '--', 'false']), 'pod/myapp created\n');
    await eventually(async () => /Reason:\s+CrashLoopBackOff/.test(await out(['describe', 'pod', 'myapp'])) || undefined, 120_000, 'myapp crash-looping');
    assert.match(await out(['describe', 'pod', 'myapp']), /\n {4}Args:\n {6}false\n {4}State: {10}Waiting\n {6}Reason: {7}CrashLoopBackOff\n {4}Last State: {5}Terminated\n {6}Reason: {7}Error\n {6}Exit Code: {4}1\n/);
    const copy = await terminal('debug myapp -it --copy-to=myapp-debug --container=myapp -- sh', ['echo $$\r', 'exit\r']);
    assert.match(copy.out, /If you don't see a command prompt, try pressing enter\./);
    // The copy's sh is its container's main process, PID 1.
    assert.match(copy.out, /\/ # echo \$\$\r\n1\r\n/);
    // Without -i the copy's sh reads no stdin: it exits 0 at once and restartPolicy Always restarts it.
    await kubectl(['debug', 'myapp', '--copy-to=myapp-debug2', '--container=myapp', '--attach=false', '--', 'sh']);
    const restarted = await eventually(async () => {
      const s = (await pod('myapp-debug2')).status?.containerStatuses?.[0];
      return s && (s.restartCount ?? 0) >= 1 && s.lastState?.terminated ? s : undefined;
    }, 120_000, 'the copy\'s sh restarted');
    assert.equal(restarted.lastState!.terminated!.reason, 'Completed');
    assert.equal(restarted.lastState!.terminated!.exitCode, 0);
    await kubectl(['delete', 'pod', 'myapp', 'myapp-debug', 'myapp-debug2']);
    await kubectl(['run', 'myapp', '--image=busybox:1.28', '--restart=Never', '--', 'sleep', '1d']);
    await waitReady('myapp');
    await kubectl(['debug', 'myapp', '--copy-to=myapp-debug', '--set-image=*=ubuntu']);
    assert.equal(await out(['get', 'pod', 'myapp-debug', '-o', 'jsonpath={.spec.containers[*].image}']), 'ubuntu');
    await waitReady('myapp-debug');
    assert.equal(await out(['delete', 'pod', 'myapp', 'myapp-debug']), 'pod "myapp" deleted\npod "myapp-debug" deleted\n');
  });

  it('Debug Running Pods, profiles: sysadmin\'s full capabilities in grep Cap /proc/$$/status and privileged; the custom profile\'s env and capabilities', async () => {
    await kubectl(['run', 'myapp', '--image=busybox:1.28', '--restart=Never', '--', 'sleep', '1d']);
    await waitReady('myapp');
    const sysadmin = await terminal('debug -it myapp --image=busybox:1.28 --target=myapp --profile=sysadmin', ['grep Cap /proc/$$/status\r', 'exit\r']);
    assert.match(sysadmin.out, /Targeting container "myapp"\. If you don't see processes from this container it may be because the container runtime doesn't support this feature\./);
    assert.match(sysadmin.out, /\/ # grep Cap \/proc\/\$\$\/status\r\nCapInh:\t0000000000000000\r\nCapPrm:\t000001ffffffffff\r\nCapEff:\t000001ffffffffff\r\nCapBnd:\t000001ffffffffff\r\nCapAmb:\t0000000000000000\r\n/);
    assert.equal(await out(['get', 'pod', 'myapp', '-o', 'jsonpath={.spec.ephemeralContainers[0].securityContext}']), '{"privileged":true}');
    await kubectl(['delete', 'pod', 'myapp']);
    await kubectl(['run', 'myapp', '--image=busybox:1.28', '--restart=Never', '--', 'sleep', '1d']);
    await waitReady('myapp');
    const custom = file('custom-profile.yaml', m.customProfile);
    const session = await terminal(`debug -it myapp --image=busybox:1.28 --target=myapp --profile=general --custom=${custom}`, ['echo $ENV_VAR_1 $ENV_VAR_2\r', 'exit\r']);
    assert.match(session.out, /\/ # echo \$ENV_VAR_1 \$ENV_VAR_2\r\nvalue_1 value_2\r\n/);
    assert.equal(await out(['get', 'pod', 'myapp', '-o', 'jsonpath={.spec.ephemeralContainers[0].env}']), '[{"name":"ENV_VAR_1","value":"value_1"},{"name":"ENV_VAR_2","value":"value_2"}]');
    assert.equal(await out(['get', 'pod', 'myapp', '-o', 'jsonpath={.spec.ephemeralContainers[0].securityContext}']), '{"capabilities":{"add":["NET_ADMIN","SYS_TIME"]}}');
    assert.equal(await out(['delete', 'pod', 'myapp']), 'pod "myapp" deleted\n');
  });
});
