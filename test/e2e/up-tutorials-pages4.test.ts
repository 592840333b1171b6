/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32
 * (and openssl and curl, where the pages use them) on `npm start`'s simulated
 * nodes, where k8ts once answered unlike upstream:
 *  - Kubernetes API health endpoints: `/readyz?verbose` listed ping, etcd,
 *    etcd-readiness and k8ts's own `storage`; now upstream's names (ping, log,
 *    etcd, etcd-readiness, informer-sync, a `poststarthook/NAME` for each start
 *    step k8ts has, shutdown), `/livez?verbose&exclude=etcd` as the page, and
 *    a check named with slashes answers on its own path;
 *  - `kubectl get --raw /metrics | grep apiserver_request_total`: samples had
 *    verb, resource, subresource and code only; now upstream's label set
 *    (code, component, dry_run, group, resource, scope, subresource, verb, version).
 * Walked and answering as upstream already: Certificate Signing Requests' "How
 * to issue a certificate for a user" (openssl, approve, the issued
 * certificate, a Role and RoleBinding, --embed-certs, `--context myuser`,
 * `auth can-i`), Updating Configuration via a ConfigMap (env, two containers,
 * the sidecar, immutable ConfigMaps; its volume section is in tutorial-logs),
 * Apply Pod Security Standards at the Namespace Level and Enforce Pod Security
 * Standards with Namespace Labels, and Manually constructing apiserver proxy
 * URLs with `kubectl proxy` and `kubectl cluster-info`.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { livezVerbose, postStartHookLines, readyzVerbose } from './health-verbose.js';
import { killChild, kubectlPortForward, type PortForward } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages4-manifests.js';

/** A command the pages run (openssl, curl), its stdout. */
function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 60_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => (err ? reject(new Error(`${command} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

const dateLine = String.raw`\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d UTC \d{4}`;

describe('k8ts up: the CSR, ConfigMap update, Pod Security, API health and apiserver proxy pages on simulated nodes', () => {
  let up: UpCluster;
  const forwards: PortForward[] = [];
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  /** `kubectl edit KIND NAME` with the editor a sed script, as a reader changes one value. */
  const edit = (target: string[], sed: string) => {
    const editor = file('editor.sh', `#!/bin/sh\nsed -i '${sed}' "$1"\n`);
    return run('kubectl', ['--kubeconfig', up.kubeconfig, 'edit', ...target], { KUBE_EDITOR: `sh ${editor}` });
  };
  /** The last line `kubectl logs TARGET` printed once it matches `line`. */
  const lastLog = (target: string, line: RegExp) => eventually(async () => {
    const last = (await out(['logs', target])).trim().split('\n').at(-1) ?? '';
    return line.test(last) ? last : undefined;
  }, 120_000, `the logs of ${target} matching ${line}`);
  /** Only the Deployment's current pods are left (the rollout's old ones gone), as the page lists them. */
  const onlyNewPods = (name: string) => eventually(async () => {
    const pods = (await out(['get', 'pods', '--selector', `app.kubernetes.io/name=${name}`, '--no-headers'])).trim().split('\n');
    return pods.length === 3 && pods.every((p) => /\s1\/1\s+Running\s/.test(p)) || undefined;
  }, 120_000, `only the new pods of ${name}`);
  const forward = async (args: string[]) => { const f = await kubectlPortForward(up.kubeconfig, args); forwards.push(f); return f; };

  before(async () => { up = await startUp('k8ts-e2e-tut-pages4-'); });
  after(async () => {
    for (const f of forwards) await killChild(f.child);
    await up?.close();
  });

  it('Certificate Signing Requests, "How to issue a certificate for a user": approve, the issued certificate, a Role and RoleBinding, --context myuser', async () => {
    const key = join(up.dir, 'myuser.key');
    const csr = join(up.dir, 'myuser.csr');
    await run('openssl', ['genrsa', '-out', key, '2048']);
    await run('openssl', ['req', '-new', '-key', key, '-out', csr, '-subj', '/CN=myuser']);
    const request = readFileSync(csr).toString('base64');
    assert.equal(await out(['apply', '-f', '-'], m.myuserCSR(request)), 'certificatesigningrequest.certificates.k8s.io/myuser created\n');
    const rows = (await out(['get', 'csr'])).trim().split('\n').map((l) => l.split(/\s+/));
    assert.deepEqual(rows[0], ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    assert.deepEqual([rows[1][0], ...rows[1].slice(2)], ['myuser', 'kubernetes.io/kube-apiserver-client', 'kubernetes-admin', '24h', 'Pending']);
    assert.equal(await out(['certificate', 'approve', 'myuser']), 'certificatesigningrequest.certificates.k8s.io/myuser approved\n');
    const certificate = await eventually(async () => (await out(['get', 'csr', 'myuser', '-o', 'jsonpath={.status.certificate}'])) || undefined, 60_000, 'the issued certificate');
    assert.match(await out(['get', 'csr', 'myuser']), /\nmyuser\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+kubernetes-admin\s+24h\s+Approved,Issued\n$/);
    // kubectl get csr myuser -o jsonpath='{.status.certificate}'| base64 -d > myuser.crt
    const crt = file('myuser.crt', Buffer.from(certificate, 'base64').toString());
    assert.match(await run('openssl', ['x509', '-in', crt, '-noout', '-subject', '-issuer']), /^subject=CN ?= ?myuser\nissuer=CN ?= ?kubernetes\n$/);
    const end = await run('openssl', ['x509', '-in', crt, '-noout', '-enddate']);
    const hours = (Date.parse(end.trim().replace('notAfter=', '')) - Date.now()) / 3_600_000;
    assert.ok(hours > 23 && hours <= 24, `expirationSeconds 86400, the certificate ends in ${hours} h`);

    assert.equal(await out(['create', 'role', 'developer', '--verb=create', '--verb=get', '--verb=list', '--verb=update', '--verb=delete', '--resource=pods']), 'role.rbac.authorization.k8s.io/developer created\n');
    assert.equal(await out(['create', 'rolebinding', 'developer-binding-myuser', '--role=developer', '--user=myuser']), 'rolebinding.rbac.authorization.k8s.io/developer-binding-myuser created\n');
    // The reader's kubeconfig gains the user and a context (a copy here: the admin's stays as it was).
    const config = join(up.dir, 'myuser-config');
    copyFileSync(up.kubeconfig, config);
    const mine = (args: string[], allowFail = false) => kubectl(['--kubeconfig', config, ...args], undefined, allowFail);
    assert.equal((await mine(['config', 'set-credentials', 'myuser', `--client-key=${key}`, `--client-certificate=${crt}`, '--embed-certs=true'])).stdout, 'User "myuser" set.\n');
    const cluster = (await mine(['config', 'view', '-o', 'jsonpath={.clusters[0].name}'])).stdout;
    assert.equal((await mine(['config', 'set-context', 'myuser', `--cluster=${cluster}`, '--user=myuser'])).stdout, 'Context "myuser" created.\n');
    assert.match((await mine(['config', 'view', '--raw', '-o', 'jsonpath={.users[?(@.name=="myuser")].user.client-certificate-data}'])).stdout, /^[A-Za-z0-9+/=]{100,}$/);
    const pods = await mine(['--context', 'myuser', 'get', 'pods']);
    assert.equal(pods.stderr, 'No resources found in default namespace.\n');
    assert.equal((await mine(['--context', 'myuser', 'auth', 'can-i', 'list', 'pods'])).stdout, 'yes\n');
    const deployments = await mine(['--context', 'myuser', 'auth', 'can-i', 'list', 'deployments'], true);
    assert.deepEqual([deployments.stdout, deployments.code], ['no\n', 1]);
    const denied = await mine(['--context', 'myuser', 'get', 'deployments'], true);
    assert.equal(denied.stderr, 'Error from server (Forbidden): deployments.apps is forbidden: User "myuser" cannot list resource "deployments" in API group "apps" in the namespace "default"\n');
    assert.match((await mine(['--context', 'myuser', 'auth', 'whoami'])).stdout, /^ATTRIBUTE\s+VALUE\nUsername\s+myuser\nGroups\s+\[system:authenticated\]\n$/);
  });

  it('Updating Configuration via a ConfigMap: env values change only with a rollout restart', async () => {
    assert.equal(await out(['create', 'configmap', 'fruits', '--from-literal=fruits=apples']), 'configmap/fruits created\n');
    assert.equal(await out(['apply', '-f', file('env.yaml', m.configmapEnvVar)]), 'deployment.apps/configmap-env-var created\n');
    await kubectl(['rollout', 'status', 'deployment/configmap-env-var', '--timeout=120s']);
    assert.match(await lastLog('deployment/configmap-env-var', /apples/), new RegExp(`^${dateLine} The basket is full of apples$`));
    assert.equal((await edit(['configmap', 'fruits'], 's/fruits: apples/fruits: mangoes/')), 'configmap/fruits edited\n');
    // The running containers keep the value they started with.
    await new Promise((r) => setTimeout(r, 11_000));
    assert.doesNotMatch(await out(['logs', 'deployment/configmap-env-var']), /mangoes/);
    assert.equal(await out(['rollout', 'restart', 'deployment', 'configmap-env-var']), 'deployment.apps/configmap-env-var restarted\n');
    assert.match(await out(['rollout', 'status', 'deployment', 'configmap-env-var', '--watch=true']), /deployment "configmap-env-var" successfully rolled out\n$/);
    assert.match(await out(['get', 'deployment', 'configmap-env-var']), /\nconfigmap-env-var\s+3\/3\s+3\s+3\s/);
    await onlyNewPods('configmap-env-var');
    assert.match(await lastLog('deployment/configmap-env-var', /mangoes/), new RegExp(`^${dateLine} The basket is full of mangoes$`));
  });

  it('Updating Configuration via a ConfigMap: two containers and a sidecar serve the mounted color through nginx, following kubectl edit', async () => {
    assert.equal(await out(['create', 'configmap', 'color', '--from-literal=color=red']), 'configmap/color created\n');
    await kubectl(['apply', '-f', file('two.yaml', m.configmapTwoContainers)]);
    await kubectl(['rollout', 'status', 'deployment/configmap-two-containers', '--timeout=120s']);
    assert.match(await out(['get', 'pods', '--selector=app.kubernetes.io/name=configmap-two-containers']), /\nconfigmap-two-containers-\S+\s+2\/2\s+Running\s/);
    assert.equal(await out(['expose', 'deployment', 'configmap-two-containers', '--name=configmap-service', '--port=8080', '--target-port=80']), 'service/configmap-service exposed\n');
    const two = await forward(['service/configmap-service', '0:8080']);
    const served = (port: number, color: string) => eventually(async () => {
      const body = await run('curl', ['-sS', '--connect-timeout', '7.5', `http://localhost:${port}`]);
      return body.includes(color) ? body : undefined;
    }, 120_000, `${color} on port ${port}`);
    assert.match(await served(two.port, 'red'), new RegExp(`^${dateLine} My preferred color is red\n$`));
    assert.equal(await edit(['configmap', 'color'], 's/color: red/color: blue/'), 'configmap/color edited\n');
    assert.match(await served(two.port, 'blue'), new RegExp(`^${dateLine} My preferred color is blue\n$`));

    // The same with the writer as a sidecar (an init container with restartPolicy: Always).
    await kubectl(['apply', '-f', file('sidecar.yaml', m.configmapSidecarContainer)]);
    await kubectl(['rollout', 'status', 'deployment/configmap-sidecar-container', '--timeout=120s']);
    assert.match(await out(['get', 'pods', '--selector=app.kubernetes.io/name=configmap-sidecar-container']), /\nconfigmap-sidecar-container-\S+\s+2\/2\s+Running\s/);
    assert.equal(await out(['expose', 'deployment', 'configmap-sidecar-container', '--name=configmap-sidecar-service', '--port=8081', '--target-port=80']), 'service/configmap-sidecar-service exposed\n');
    const sidecar = await forward(['service/configmap-sidecar-service', '0:8081']);
    assert.match(await served(sidecar.port, 'blue'), new RegExp(`^${dateLine} My preferred color is blue\n$`));
    assert.equal(await edit(['configmap', 'color'], 's/color: blue/color: green/'), 'configmap/color edited\n');
    assert.match(await served(sidecar.port, 'green'), new RegExp(`^${dateLine} My preferred color is green\n$`));
  });

  it('Updating Configuration via a ConfigMap: an immutable ConfigMap refuses changes; the Deployment moves to a new one', async () => {
    assert.equal(await out(['apply', '-f', file('immutable-configmap.yaml', m.immutableConfigMap)]), 'configmap/company-name-20150801 created\n');
    await kubectl(['apply', '-f', file('immutable-volume.yaml', m.immutableConfigmapVolume)]);
    await kubectl(['rollout', 'status', 'deployment/immutable-configmap-volume', '--timeout=120s']);
    assert.match(await lastLog('deployments/immutable-configmap-volume', /ACME/), new RegExp(`^${dateLine} The name of the company is ACME, Inc\\.$`));
    const changed = await kubectl(['patch', 'configmap', 'company-name-20150801', '-p', '{"data":{"company_name":"x"}}'], undefined, true);
    assert.equal(changed.stderr, 'The ConfigMap "company-name-20150801" is invalid: data: Forbidden: field is immutable when `immutable` is set\n');
    const mutable = await kubectl(['patch', 'configmap', 'company-name-20150801', '-p', '{"immutable":false}'], undefined, true);
    assert.equal(mutable.stderr, 'The ConfigMap "company-name-20150801" is invalid: immutable: Forbidden: field is immutable when `immutable` is set\n');
    assert.equal(await out(['apply', '-f', file('new-immutable-configmap.yaml', m.newImmutableConfigMap)]), 'configmap/company-name-20240312 created\n');
    assert.match(await out(['get', 'configmap']), /\ncompany-name-20150801\s+1\s+\S+\ncompany-name-20240312\s+1\s/);
    assert.equal(await edit(['deployment', 'immutable-configmap-volume'], 's/company-name-20150801/company-name-20240312/'), 'deployment.apps/immutable-configmap-volume edited\n');
    await kubectl(['rollout', 'status', 'deployment/immutable-configmap-volume', '--timeout=120s']);
    await onlyNewPods('immutable-configmap-volume');
    assert.match(await lastLog('deployments/immutable-configmap-volume', /Fiktiv/), new RegExp(`^${dateLine} The name of the company is Fiktivesunternehmen GmbH$`));
    assert.equal(await out(['delete', 'configmap', 'company-name-20150801']), 'configmap "company-name-20150801" deleted\n');
  });

  it('Pod Security Standards at the namespace level: warn and enforce labels, a server dry run over every namespace, restricted refusing a privileged pod', async () => {
    const restrictedWarning = 'Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), '
      + 'unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), '
      + 'seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")\n';
    assert.equal(await out(['create', 'ns', 'example']), 'namespace/example created\n');
    assert.equal(await out(['label', '--overwrite', 'ns', 'example', 'pod-security.kubernetes.io/warn=baseline', 'pod-security.kubernetes.io/warn-version=latest']), 'namespace/example labeled\n');
    await kubectl(['label', '--overwrite', 'ns', 'example', 'pod-security.kubernetes.io/enforce=baseline', 'pod-security.kubernetes.io/enforce-version=latest',
      'pod-security.kubernetes.io/warn=restricted', 'pod-security.kubernetes.io/warn-version=latest', 'pod-security.kubernetes.io/audit=restricted', 'pod-security.kubernetes.io/audit-version=latest']);
    const pod = file('example-baseline-pod.yaml', m.exampleBaselinePod);
    const inExample = await kubectl(['apply', '-n', 'example', '-f', pod]);
    assert.deepEqual([inExample.stderr, inExample.stdout], [restrictedWarning, 'pod/nginx created\n']);
    const inDefault = await kubectl(['apply', '-n', 'default', '-f', pod]);
    assert.deepEqual([inDefault.stderr, inDefault.stdout], ['', 'pod/nginx created\n']);

    // Enforce Pod Security Standards with Namespace Labels: what enforcing baseline everywhere would meet.
    const dry = await kubectl(['label', '--dry-run=server', '--overwrite', 'ns', '--all', 'pod-security.kubernetes.io/enforce=baseline']);
    assert.equal(dry.stdout, ['default labeled', 'example not labeled', 'kube-node-lease labeled', 'kube-public labeled', 'kube-system labeled']
      .map((l) => `namespace/${l} (server dry run)\n`).join(''));
    // kube-system's add-ons use host namespaces on npm start's nodes (k8ts's DNS and kube-proxy run on the host network).
    assert.match(dry.stderr, /^Warning: existing pods in namespace "kube-system" violate the new PodSecurity enforce level "baseline:latest"\n(Warning: \S+( \(and \d+ other pods?\))?: [\w ,]+\n)+$/);
    assert.match(dry.stderr, /\nWarning: kube-proxy-\S+ \(and 2 other pods\): host namespaces, privileged\n/);
    assert.equal(await out(['get', 'ns', 'default', '-o', 'jsonpath={.metadata.labels.pod-security\\.kubernetes\\.io/enforce}']), '', 'a dry run changed nothing');

    await kubectl(['create', 'ns', 'my-restricted']);
    await kubectl(['label', '--overwrite', 'ns', 'my-restricted', 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/enforce-version=v1.32']);
    const privileged = await kubectl(['apply', '-n', 'my-restricted', '-f', '-'], m.exampleBaselinePod.replace('      ports:\n', '      securityContext:\n        privileged: true\n      ports:\n'), true);
    assert.equal(privileged.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "nginx" is forbidden: violates PodSecurity "restricted:v1.32": privileged (container "nginx" must not set securityContext.privileged=true), '
      + 'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), '
      + 'runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")\n');
  });

  it('Kubernetes API health endpoints: verbose lists with upstream\'s check names, exclude, individual checks; apiserver_request_total with upstream\'s labels', async () => {
    assert.equal(await out(['get', '--raw=/readyz?verbose']), readyzVerbose);
    assert.equal(await out(['get', '--raw=/livez?verbose&exclude=etcd']), `[+]ping ok\n[+]log ok\n[+]etcd excluded: ok\n${postStartHookLines}\nlivez check passed\n`);
    assert.equal(await out(['get', '--raw=/livez?verbose']), livezVerbose);
    for (const check of ['/readyz/etcd', '/livez/ping', '/readyz/shutdown', '/readyz/poststarthook/rbac/bootstrap-roles', '/healthz/log']) assert.equal(await out(['get', `--raw=${check}`]), 'ok', check);
    // Anyone may ask (curl -k https://localhost:6443/livez?verbose).
    const server = await out(['config', 'view', '-o', 'jsonpath={.clusters[0].cluster.server}']);
    assert.equal(await run('curl', ['-sk', `${server}/livez?verbose`]), livezVerbose);
    const metrics = (await out(['get', '--raw', '/metrics'])).split('\n').filter((l) => l.includes('apiserver_request_total'));
    assert.equal(metrics[0], '# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    const line = /^apiserver_request_total\{code="(\d+)",component="apiserver",dry_run="([^"]*)",group="([^"]*)",resource="([^"]*)",scope="(\w*)",subresource="([^"]*)",verb="([A-Z]+)",version="(\w*)"\} \d+$/;
    for (const sample of metrics.slice(2)) assert.match(sample, line);
    const labels = metrics.slice(2).map((l) => line.exec(l)!.slice(1, 9).join(' '));
    // The page's reads: a namespaced list, a named get, a cluster-wide list, a create; and the dry run above.
    for (const want of ['200  apps deployments resource  GET v1', '200   pods namespace  LIST v1', '201   pods resource  POST v1', '200   namespaces cluster  LIST v1', '200 All  namespaces resource  PATCH v1']) {
      assert.ok(labels.includes(want), `no sample "${want}" in:\n${labels.join('\n')}`);
    }
  });

  it('Access Services Running on Clusters: kubectl cluster-info, and services and pods reached through kubectl proxy\'s apiserver proxy URLs', async () => {
    const info = await out(['cluster-info']);
    assert.match(info, /^Kubernetes control plane is running at https:\/\/\S+\nCoreDNS is running at https:\/\/\S+\/api\/v1\/namespaces\/kube-system\/services\/kube-dns:dns\/proxy\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'\.\n$/);
    const proxy = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'proxy', '--port=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let said = '';
      proxy.stdout.on('data', (d: Buffer) => { said += d.toString(); });
      const port = await eventually(async () => /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(said)?.[1], 30_000, 'kubectl proxy serving');
      const base = `http://localhost:${port}/api/v1/namespaces/default`;
      const color = new RegExp(`^${dateLine} My preferred color is green\n$`);
      // services/NAME:PORT/proxy/, services/NAME/proxy/ (the only port) and the scheme-prefixed form.
      // The two-container pods read the same ConfigMap (green since the sidecar's edit) every 10 s.
      const green = (url: string) => eventually(async () => color.test(await run('curl', ['-sS', url])) || undefined, 60_000, `green at ${url}`);
      for (const service of ['configmap-service:8080', 'configmap-service', 'http:configmap-service:8080']) await green(`${base}/services/${service}/proxy/`);
      const pod = await out(['get', 'pods', '-l', 'app.kubernetes.io/name=configmap-sidecar-container', '-o', 'jsonpath={.items[0].metadata.name}']);
      await green(`${base}/pods/${pod}:80/proxy/`);
      await green(`${base}/pods/${pod}/proxy/index.html`);
    } finally {
      await killChild(proxy);
    }
  });
});
