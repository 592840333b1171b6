/**
 * Five more kubernetes.io pages, command by command with the real kubectl
 * 1.32 on `npm start`'s simulated nodes, where k8ts once answered unlike
 * upstream:
 *  - Configure a Pod to Use a ConfigMap, every section (up-tutorials-config
 *    and up-probes-pipes walked three of its pods): `create configmap
 *    --from-file` of a directory and of files, `--from-env-file`,
 *    `--from-literal`, the kustomize generators, env, envFrom, `$(VAR)`,
 *    volumes, optional references, immutable. A pod naming a ConfigMap that
 *    does not exist ran as if it did; now, as the page's Restrictions say,
 *    it does not start: CreateContainerConfigError (`Error: configmap
 *    "a-config" not found`) for env, ContainerCreating with FailedMount for
 *    a volume, and it starts once the ConfigMap is created;
 *  - Distribute Credentials Securely Using Secrets, past its first pod:
 *    `get` and `describe secret`, keys projected to paths with a mode, the
 *    env pods; `echo "username: $username\npassword: $password\n"` in nginx
 *    printed the `\n`s, where Debian's sh (dash) prints new lines;
 *  - Expose Pod Information to Containers Through Files: both pods' logs,
 *    the files (`cat`, `ls -laR` of the atomic writer's ..data links), the
 *    resource fields in their divisors' units, a label change reaching the
 *    file;
 *  - Use Port Forwarding to Access Applications in a Cluster (the MongoDB
 *    example): nothing listened on mongo's 27017; now a simulated mongod
 *    answers the wire protocol, and `db.runCommand( { ping: 1 } )` through
 *    each form of `kubectl port-forward` gets `{ ok: 1 }`;
 *  - Run a Replicated Stateful Application (MySQL): the ConfigMap, the two
 *    Services, the StatefulSet's three pods Running 2/2 after their two init
 *    containers, their claims Bound, scaling to 5 and back, deleting the
 *    claims. Its SQL (CREATE, INSERT, SELECT through mysql-read, the
 *    replicas' server ids) is not simulated: known-gaps.md.
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { killChild, kubectlPortForward } from './helpers.js';
import { freePort } from './free-port.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages7-manifests.js';

/**
 * `db.runCommand( { ping: 1 } )` as mongosh sends it (OP_MSG, opcode 2013,
 * body `{ ping: 1, $db: "test" }`), the BSON written out by hand; resolves
 * with the reply's opcode, responseTo and body bytes.
 */
function mongoPing(port: number): Promise<{ opCode: number; responseTo: number; body: string }> {
  const i32 = (v: number) => { const b = Buffer.alloc(4); b.writeInt32LE(v); return b; };
  const elements = Buffer.concat([
    Buffer.from([0x10]), Buffer.from('ping\0'), i32(1),
    Buffer.from([0x02]), Buffer.from('$db\0'), i32(5), Buffer.from('test\0'),
  ]);
  const doc = Buffer.concat([i32(elements.length + 5), elements, Buffer.from([0])]);
  const message = Buffer.concat([i32(21 + doc.length), i32(42), i32(0), i32(2013), i32(0), Buffer.from([0]), doc]);
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(message));
    let got = Buffer.alloc(0);
    s.on('error', reject);
    s.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length < 4 || got.length < got.readInt32LE(0)) return;
      s.end();
      resolve({ opCode: got.readInt32LE(12), responseTo: got.readInt32LE(8), body: got.subarray(21).toString('hex') });
    });
  });
}

/** `{ ok: 1.0 }` in BSON: a 17-byte document with one double. */
const okOne = '11000000' + '01' + Buffer.from('ok\0').toString('hex') + '000000000000f03f' + '00';

describe('k8ts up: the ConfigMap, Secrets, downward API files, port forwarding and replicated MySQL pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const phase = (pod: string, want: string) => eventually(async () => (await out(['get', 'pod', pod, '-o', 'jsonpath={.status.phase}'])) === want || undefined, 120_000, `${pod} ${want}`);
  const logsOf = async (pod: string) => { await phase(pod, 'Succeeded'); return out(['logs', pod]); };
  const deletePod = (name: string) => kubectl(['delete', 'pod', name, '--now']);
  const status = (pod: string) => eventually(async () => (await out(['get', 'pod', pod, '--no-headers'])).trim().split(/\s+/)[2] || undefined, 30_000, `${pod}'s status`);

  before(async () => { up = await startUp('k8ts-e2e-tut-pages7-'); });
  after(async () => { await up?.close(); });

  it('ConfigMap: create configmap from a directory, files, an env-file and literals; describe and get -o yaml show the data', async () => {
    const dir = join(up.dir, 'configure-pod-container', 'configmap');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'game.properties'), m.gameProperties);
    writeFileSync(join(dir, 'ui.properties'), m.uiProperties);
    assert.equal(await out(['create', 'configmap', 'game-config', `--from-file=${dir}/`]), 'configmap/game-config created\n');
    const described = await out(['describe', 'configmaps', 'game-config']);
    assert.match(described, /^Name:\s+game-config\nNamespace:\s+default\nLabels:\s+<none>\nAnnotations:\s+<none>\n\nData\n====\n/);
    assert.ok(described.includes(`game.properties:\n----\n${m.gameProperties}\n`), described);
    assert.ok(described.includes(`ui.properties:\n----\n${m.uiProperties}`), described);
    const yaml = await out(['get', 'configmaps', 'game-config', '-o', 'yaml']);
    assert.ok(yaml.startsWith(`apiVersion: v1\ndata:\n  game.properties: |-\n    enemies=aliens\n    lives=3\n`), yaml);
    assert.match(yaml, /\n {2}ui\.properties: \|\n {4}color\.good=purple\n[^]*kind: ConfigMap\nmetadata:\n {2}creationTimestamp: "[^"]+"\n {2}name: game-config\n {2}namespace: default\n {2}resourceVersion: "\d+"\n {2}uid: [0-9a-f-]{36}\n$/);

    assert.equal(await out(['create', 'configmap', 'game-config-2', `--from-file=${dir}/game.properties`]), 'configmap/game-config-2 created\n');
    assert.equal((await out(['get', 'configmap', 'game-config-2', '-o', 'jsonpath={.data}'])), JSON.stringify({ 'game.properties': m.gameProperties }));

    writeFileSync(join(dir, 'game-env-file.properties'), m.gameEnvFile);
    writeFileSync(join(dir, 'ui-env-file.properties'), m.uiEnvFile);
    await kubectl(['create', 'configmap', 'game-config-env-file', `--from-env-file=${dir}/game-env-file.properties`]);
    assert.match(await out(['get', 'configmap', 'game-config-env-file', '-o', 'yaml']), /^apiVersion: v1\ndata:\n {2}allowed: '"true"'\n {2}enemies: aliens\n {2}lives: "3"\nkind: ConfigMap\n/);
    await kubectl(['create', 'configmap', 'config-multi-env-files', `--from-env-file=${dir}/game-env-file.properties`, `--from-env-file=${dir}/ui-env-file.properties`]);
    // kubectl 1.32 merges every env-file (the page's caution that only the last counts is older than that).
    assert.equal(await out(['get', 'configmap', 'config-multi-env-files', '-o', 'jsonpath={.data.color} {.data.how} {.data.textmode} {.data.lives}']), 'purple fairlyNice true 3');
    await kubectl(['create', 'configmap', 'game-config-3', `--from-file=game-special-key=${dir}/game.properties`]);
    assert.match(await out(['get', 'configmaps', 'game-config-3', '-o', 'yaml']), /^apiVersion: v1\ndata:\n {2}game-special-key: \|-\n {4}enemies=aliens\n/);
    await kubectl(['create', 'configmap', 'special-config', '--from-literal=special.how=very', '--from-literal=special.type=charm']);
    assert.match(await out(['get', 'configmaps', 'special-config', '-o', 'yaml']), /^apiVersion: v1\ndata:\n {2}special\.how: very\n {2}special\.type: charm\nkind: ConfigMap\n/);
  });

  it('ConfigMap: the generators of kubectl apply -k name their ConfigMaps with a hash of the content', async () => {
    const kdir = join(up.dir, 'kustomize');
    mkdirSync(join(kdir, 'configure-pod-container', 'configmap'), { recursive: true });
    writeFileSync(join(kdir, 'configure-pod-container', 'configmap', 'game.properties'), m.gameProperties);
    writeFileSync(join(kdir, 'kustomization.yaml'), 'configMapGenerator:\n- name: game-config-4\n  options:\n    labels:\n      game-config: config-4\n  files:\n  - configure-pod-container/configmap/game.properties\n');
    const created = await out(['apply', '-k', kdir]);
    const name = /^configmap\/(game-config-4-[a-z0-9]{10}) created\n$/.exec(created)?.[1];
    assert.ok(name, created);
    assert.match(await out(['get', 'configmap']), new RegExp(`\\n${name}\\s+1\\s+\\d+s\\n`));
    const described = await out(['describe', `configmaps/${name}`]);
    assert.match(described, /\nLabels:\s+game-config=config-4\n/);
    assert.ok(described.includes(`Data\n====\ngame.properties:\n----\n${m.gameProperties}\n`), described);
    writeFileSync(join(kdir, 'kustomization.yaml'), 'configMapGenerator:\n- name: special-config-2\n  literals:\n  - special.how=very\n  - special.type=charm\n');
    assert.match(await out(['apply', '-k', kdir]), /^configmap\/special-config-2-[a-z0-9]{10} created\n$/);
  });

  it('ConfigMap: env from one and from two ConfigMaps, envFrom, $(VAR) in the command, a volume and a key at a path', async () => {
    await kubectl(['delete', 'configmap', 'special-config']);
    await kubectl(['create', 'configmap', 'special-config', '--from-literal=special.how=very']);
    await kubectl(['apply', '-f', '-'], m.singleConfigMapEnv);
    assert.match(await logsOf('dapi-test-pod'), /^SPECIAL_LEVEL_KEY=very$/m);
    await deletePod('dapi-test-pod');
    await kubectl(['delete', 'configmap', 'special-config']);

    assert.equal(await out(['create', '-f', '-'], m.configMaps), 'configmap/special-config created\nconfigmap/env-config created\n');
    await kubectl(['create', '-f', '-'], m.multipleConfigMapEnv);
    const two = await logsOf('dapi-test-pod');
    assert.match(two, /^SPECIAL_LEVEL_KEY=very$/m);
    assert.match(two, /^LOG_LEVEL=INFO$/m);
    await deletePod('dapi-test-pod');
    await kubectl(['delete', 'configmap', 'special-config', 'env-config']);

    await kubectl(['create', '-f', '-'], m.configMapMultikeys);
    await kubectl(['create', '-f', '-'], m.configMapEnvFrom);
    const all = await logsOf('dapi-test-pod');
    assert.match(all, /^SPECIAL_LEVEL=very$/m);
    assert.match(all, /^SPECIAL_TYPE=charm$/m);
    await deletePod('dapi-test-pod');
    await kubectl(['create', '-f', '-'], m.configMapEnvVarValueFrom);
    assert.equal(await logsOf('dapi-test-pod'), 'very charm\n');
    await deletePod('dapi-test-pod');
    await kubectl(['create', '-f', '-'], m.configMapVolume);
    assert.equal(await logsOf('dapi-test-pod'), 'SPECIAL_LEVEL\nSPECIAL_TYPE\n');
    await deletePod('dapi-test-pod');
    await kubectl(['create', '-f', '-'], m.configMapVolumeSpecificKey);
    assert.equal(await logsOf('dapi-test-pod'), 'very');
    await deletePod('dapi-test-pod');
  });

  it('ConfigMap: optional references to a ConfigMap that does not exist start; required ones hold the pod until it exists', async () => {
    await kubectl(['create', '-f', '-'], m.optionalConfigMapEnv);
    assert.doesNotMatch(await logsOf('dapi-test-pod'), /SPECIAL_LEVEL_KEY/);
    await deletePod('dapi-test-pod');
    await kubectl(['create', '-f', '-'], m.optionalConfigMapVolume);
    assert.equal(await logsOf('dapi-test-pod'), '');
    await deletePod('dapi-test-pod');

    await kubectl(['create', '-f', '-'], m.requiredConfigMapEnv);
    await kubectl(['create', '-f', '-'], m.requiredConfigMapVolume);
    await eventually(async () => (await status('missing-config-env')) === 'CreateContainerConfigError' || undefined, 60_000, 'CreateContainerConfigError');
    assert.equal(await out(['get', 'pod', 'missing-config-env', '-o', 'jsonpath={.status.phase} {.status.containerStatuses[0].state.waiting.message}']), 'Pending configmap "a-config" not found');
    const envEvents = await eventually(async () => {
      const d = await out(['describe', 'pod', 'missing-config-env']);
      return /Warning\s+Failed\s+.*kubelet\s+Error: configmap "a-config" not found/.test(d) ? d : undefined;
    }, 60_000, 'the Failed event');
    assert.match(envEvents, /State:\s+Waiting\n\s+Reason:\s+CreateContainerConfigError\n/);
    const volumeEvents = await eventually(async () => {
      const d = await out(['describe', 'pod', 'missing-config-volume']);
      return /Warning\s+FailedMount\s+.*kubelet\s+MountVolume\.SetUp failed for volume "config-volume" : configmap "no-config" not found/.test(d) ? d : undefined;
    }, 60_000, 'the FailedMount event');
    assert.match(volumeEvents, /Status:\s+Pending\n/);
    assert.equal(await status('missing-config-volume'), 'ContainerCreating');

    await kubectl(['create', 'configmap', 'a-config', '--from-literal=akey=avalue']);
    await kubectl(['create', 'configmap', 'no-config', '--from-literal=k=v']);
    assert.match(await logsOf('missing-config-env'), /^SPECIAL_LEVEL_KEY=avalue$/m);
    assert.equal(await logsOf('missing-config-volume'), 'k\n');
    await kubectl(['delete', 'pod', 'missing-config-env', 'missing-config-volume', '--now']);
  });

  it('ConfigMap: an immutable ConfigMap refuses a change of its data', async () => {
    await kubectl(['apply', '-f', '-'], m.immutableConfigMap);
    const refused = await kubectl(['patch', 'configmap', 'immutable-configmap', '-p', '{"data":{"company_name":"Fiktivesunternehmen GmbH"}}'], undefined, true);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /ConfigMap "immutable-configmap" is invalid: data: Forbidden: field is immutable when `immutable` is set/);
  });

  it('Secrets: get and describe secret, keys at paths with a mode, env from one and two Secrets, envFrom echoed by dash', async () => {
    assert.equal(await out(['apply', '-f', '-'], m.testSecret), 'secret/test-secret created\n');
    assert.match(await out(['get', 'secret', 'test-secret']), /^NAME\s+TYPE\s+DATA\s+AGE\ntest-secret\s+Opaque\s+2\s+\d+s\n$/);
    // kubectl prints the keys in Go's map order: either comes first.
    const described = await out(['describe', 'secret', 'test-secret']);
    assert.match(described, /\nType:\s+Opaque\n\nData\n====\n(password:\s+12 bytes\nusername:\s+6 bytes|username:\s+6 bytes\npassword:\s+12 bytes)\n$/);
    await kubectl(['apply', '-f', '-'], m.secretProjectedPod);
    await kubectl(['wait', '--for=condition=Ready', 'pod/secret-test-pod', '--timeout=120s']);
    assert.equal(await out(['exec', 'secret-test-pod', '--', 'cat', '/etc/secret-volume/my-group/my-username']), 'my-app');
    assert.equal((await kubectl(['exec', 'secret-test-pod', '--', 'cat', '/etc/secret-volume/password'], undefined, true)).code, 1);
    assert.match(await out(['exec', 'secret-test-pod', '--', 'ls', '-l', '/etc/secret-volume/..data/my-group/']), /^total \d+\n-r-------- 1 root root 6 \w{3} [ \d]\d \d\d:\d\d my-username\n$/);

    assert.equal(await out(['create', 'secret', 'generic', 'backend-user', "--from-literal=backend-username=backend-admin"]), 'secret/backend-user created\n');
    await kubectl(['apply', '-f', '-'], m.envSingleSecret);
    await kubectl(['create', 'secret', 'generic', 'db-user', '--from-literal=db-username=db-admin']);
    await kubectl(['apply', '-f', '-'], m.envVarsMultipleSecrets);
    await kubectl(['apply', '-f', '-'], m.envFromSecret);
    await kubectl(['wait', '--for=condition=Ready', 'pod/env-single-secret', 'pod/envvars-multiple-secrets', 'pod/envfrom-secret', '--timeout=120s']);
    assert.equal(await out(['exec', 'env-single-secret', '--', '/bin/sh', '-c', 'echo $SECRET_USERNAME']), 'backend-admin\n');
    assert.equal(await out(['exec', 'envvars-multiple-secrets', '--', '/bin/sh', '-c', 'env | grep _USERNAME']), 'BACKEND_USERNAME=backend-admin\nDB_USERNAME=db-admin\n');
    assert.equal(await out(['exec', 'envfrom-secret', '--', '/bin/sh', '-c', 'echo "username: $username\\npassword: $password\\n"']), 'username: my-app\npassword: 39528$vdg7Jb\n\n');
    // bash's echo (and busybox's) print the backslashes without -e.
    assert.equal(await out(['exec', 'envfrom-secret', '--', '/bin/bash', '-c', 'echo "a\\nb"']), 'a\\nb\n');
    await kubectl(['delete', 'pod', 'secret-test-pod', 'env-single-secret', 'envvars-multiple-secrets', 'envfrom-secret', '--now']);
  });

  it('Downward API files: the logs, cat and ls -laR of /etc/podinfo, the resource fields in their divisors, a new label in the file', async () => {
    await kubectl(['apply', '-f', '-'], m.dapiVolume);
    await kubectl(['apply', '-f', '-'], m.dapiVolumeResources);
    const labels = 'cluster="test-cluster1"\nrack="rack-22"\nzone="us-est-coast"';
    const log = await eventually(async () => { const l = await out(['logs', 'kubernetes-downwardapi-volume-example']); return l.includes('builder=') ? l : undefined; }, 120_000, 'the labels and annotations logged');
    assert.ok(log.startsWith(`\n\n${labels}\n\nbuild="two"\nbuilder="john-doe"\n`), JSON.stringify(log));
    assert.equal(await out(['exec', 'kubernetes-downwardapi-volume-example', '--', 'cat', '/etc/podinfo/labels']), labels);
    const ls = await out(['exec', 'kubernetes-downwardapi-volume-example', '--', 'ls', '-laR', '/etc/podinfo']);
    const ts = /(\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d+)\n/.exec(ls)?.[1];
    assert.ok(ts, ls);
    assert.match(ls, new RegExp(`lrwxrwxrwx +1 root +root +\\d+ \\w{3} [ \\d]\\d \\d\\d:\\d\\d \\.\\.data -> ${ts.replaceAll('.', '\\.')}\\n`));
    // A downward API volume is a memory-backed emptyDir: tmpfs's sticky 1777, as the page's `drwxrwxrwt`.
    assert.match(ls, /^\/etc\/podinfo:\ntotal \d+\ndrwxrwxrwt +3 root +root +\d+ \w{3} [ \d]\d \d\d:\d\d \.\n/);
    assert.match(ls, /lrwxrwxrwx +1 root +root +18 .* annotations -> \.\.data\/annotations\n/);
    assert.match(ls, /lrwxrwxrwx +1 root +root +13 .* labels -> \.\.data\/labels\n/);
    assert.match(ls, new RegExp(`\\n/etc/podinfo/${ts.replaceAll('.', '\\.')}:\\ntotal \\d+\\n[^]*-rw-r--r-- +1 root +root +\\d+ .* labels\\n`));

    const resources = await eventually(async () => { const l = await out(['logs', 'kubernetes-downwardapi-volume-example-2']); return l.includes('32') ? l : undefined; }, 120_000, 'the resource fields logged');
    assert.ok(resources.startsWith('\n\n250\n125\n64\n32'), JSON.stringify(resources));
    assert.equal(await out(['exec', 'kubernetes-downwardapi-volume-example-2', '--', 'cat', '/etc/podinfo/cpu_limit']), '250');

    await kubectl(['label', 'pod', 'kubernetes-downwardapi-volume-example', 'tier=web']);
    await eventually(async () => (await out(['exec', 'kubernetes-downwardapi-volume-example', '--', 'cat', '/etc/podinfo/labels'])).includes('tier="web"') || undefined, 120_000, 'the new label in the file');
    await kubectl(['delete', 'pod', 'kubernetes-downwardapi-volume-example', 'kubernetes-downwardapi-volume-example-2', '--now']);
  });

  it('Port forwarding: mongo Deployment and Service, the containerPort template, port-forward to pod, deployment, replicaset and service, ping answers ok: 1', async () => {
    assert.equal(await out(['apply', '-f', '-'], m.mongo), 'deployment.apps/mongo created\nservice/mongo created\n');
    await kubectl(['rollout', 'status', 'deployment/mongo', '--timeout=120s']);
    const pod = await out(['get', 'pods', '-l', 'app.kubernetes.io/name=mongo', '-o', 'jsonpath={.items[0].metadata.name}']);
    assert.match(await out(['get', 'pods']), new RegExp(`\\n${pod}\\s+1/1\\s+Running\\s+0\\s+`));
    assert.match(await out(['get', 'deployment']), /\nmongo\s+1\/1\s+1\s+1\s+/);
    const rs = pod.replace(/-[a-z0-9]+$/, '');
    assert.match(await out(['get', 'replicaset']), new RegExp(`\\n${rs}\\s+1\\s+1\\s+1\\s+`));
    assert.match(await out(['get', 'service', 'mongo']), /\nmongo\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+27017\/TCP\s+/);
    assert.equal(await out(['get', 'pod', pod, '--template={{(index (index .spec.containers 0).ports 0).containerPort}}{{"\\n"}}']), '27017\n');
    for (const target of [pod, `pods/${pod}`, 'deployment/mongo', `replicaset/${rs}`, 'service/mongo']) {
      const local = await freePort();
      const pf = await kubectlPortForward(up.kubeconfig, [target, `${local}:27017`]);
      try {
        assert.equal(pf.port, local);
        assert.match(pf.out(), new RegExp(`Forwarding from 127\\.0\\.0\\.1:${local} -> 27017\\n`));
        assert.deepEqual(await mongoPing(local), { opCode: 2013, responseTo: 42, body: okOne });
      } finally {
        await killChild(pf.child);
      }
    }
    // Letting kubectl choose the local port.
    const chosen = await kubectlPortForward(up.kubeconfig, [`pod/${pod}`, ':27017']);
    try {
      assert.match(chosen.out(), new RegExp(`Forwarding from 127\\.0\\.0\\.1:${chosen.port} -> 27017\\n`));
      assert.deepEqual(await mongoPing(chosen.port), { opCode: 2013, responseTo: 42, body: okOne });
    } finally {
      await killChild(chosen.child);
    }
  });

  it('Replicated MySQL: the ConfigMap, Services and StatefulSet; three pods 2/2 after their init containers, claims Bound, scale to 5 and back', async () => {
    await kubectl(['apply', '-f', '-'], m.mysqlConfigMap);
    assert.equal(await out(['apply', '-f', '-'], m.mysqlServices), 'service/mysql created\nservice/mysql-read created\n');
    assert.equal(await out(['apply', '-f', '-'], m.mysqlStatefulSet), 'statefulset.apps/mysql created\n');
    const running = (n: number) => eventually(async () => {
      const rows = (await out(['get', 'pods', '-l', 'app=mysql', '--no-headers'])).trim().split('\n').filter(Boolean);
      return rows.length === n && rows.every((r) => /^mysql-\d\s+2\/2\s+Running\s+0\s/.test(r)) ? rows : undefined;
    }, 240_000, `${n} mysql pods 2/2 Running`);
    assert.deepEqual((await running(3)).map((r) => r.split(/\s+/)[0]), ['mysql-0', 'mysql-1', 'mysql-2']);
    assert.equal(await out(['get', 'pod', 'mysql-1', '-o', 'jsonpath={range .status.initContainerStatuses[*]}{.name}={.state.terminated.reason} {end}']), 'init-mysql=Completed clone-mysql=Completed ');
    assert.equal(await out(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=mysql-read', '-o', 'jsonpath={range .items[*].endpoints[*]}{.targetRef.name} {end}']).then((s) => s.trim().split(' ').sort().join(' ')), 'mysql-0 mysql-1 mysql-2');
    assert.equal(await out(['scale', 'statefulset', 'mysql', '--replicas=5']), 'statefulset.apps/mysql scaled\n');
    await running(5);
    assert.equal(await out(['scale', 'statefulset', 'mysql', '--replicas=3']), 'statefulset.apps/mysql scaled\n');
    await running(3);
    // "the PersistentVolumeClaims ... are not deleted when you scale the StatefulSet down"
    const claims = await out(['get', 'pvc', '-l', 'app=mysql']);
    for (let i = 0; i < 5; i++) assert.match(claims, new RegExp(`\\ndata-mysql-${i}\\s+Bound\\s+pvc-[0-9a-f-]+\\s+10Gi\\s+RWO\\s+`));
    assert.equal(await out(['delete', 'pvc', 'data-mysql-3', 'data-mysql-4']), 'persistentvolumeclaim "data-mysql-3" deleted\npersistentvolumeclaim "data-mysql-4" deleted\n');
  });
});
