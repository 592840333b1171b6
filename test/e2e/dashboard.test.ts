/**
 * The built-in dashboard (issue #24) in a real browser (dashboard-browser.ts)
 * against `k8ts up` (three simulated nodes), changed with the real kubectl:
 * the seed DaemonSet's one card per eligible node, a taint's badge and a
 * NoExecute eviction, a StatefulSet scaled 3→5→2 in ordinal order with its
 * ordered events, a pending pod's per-node reasons, an RBAC-limited token's
 * view, the page's own node, workload and object actions, and a simulated
 * pod's terminal running the simulated shell. Screenshots go to docs/dashboard/.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import https from 'node:https';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Browser, Page } from 'playwright-core';
import { eventually, repoRoot, seedsDir } from './harness.js';
import { extractManifests } from './seed-manifests.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { launchBrowser, loggedInPage } from './dashboard-browser.js';

let up: UpCluster;
let browser: Browser;
let page: Page;
let dashboard: string;

/**
 * Screenshots of the screens under test: into docs/dashboard (the README's pictures) when
 * K8TS_SCREENSHOTS=docs, else into a temporary folder, so a test run leaves the tree as it was.
 */
const shotsDir = process.env.K8TS_SCREENSHOTS === 'docs' ? join(repoRoot, 'docs', 'dashboard') : mkdtempSync(join(tmpdir(), 'k8ts-dashboard-shots-'));
const shot = (p: Page, name: string) => p.screenshot({ path: join(shotsDir, `${name}.png`) });
/** The data-pod keys of the cards in a column ('pending pods' or 'node NAME'), in page order. */
const cardsIn = (p: Page, column: string) => p.locator(`section[aria-label="${column}"] [data-pod]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-pod')!));
const kubectl = (...args: string[]) => up.kubectl(args);

before(async () => {
  up = await startUp('k8ts-dashboard-');
  const server = parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster.server;
  dashboard = `${server}/dashboard/`;
  // What `k8ts up` tells a user to run for a cluster-admin token.
  await kubectl('create', 'serviceaccount', 'dashboard-admin', '-n', 'kube-system');
  await kubectl('create', 'clusterrolebinding', 'dashboard-admin', '--clusterrole=cluster-admin', '--serviceaccount=kube-system:dashboard-admin');
  const token = (await kubectl('create', 'token', 'dashboard-admin', '-n', 'kube-system')).stdout.trim();
  browser = await launchBrowser();
  page = await loggedInPage(browser, dashboard, token);
});

after(async () => {
  await browser?.close();
  await up?.close();
});

test('the static page needs no credentials; the placement API answers with the caller\'s identity', async () => {
  const ca = Buffer.from(parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster['certificate-authority-data'], 'base64');
  const get = (path: string) => new Promise<{ status: number; headers: Record<string, unknown>; bytes: number }>((resolve, reject) => {
    https.get(new URL(path, dashboard), { ca, headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => { bytes += d.length; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes }));
    }).on('error', reject);
  });
  const index = await get('/dashboard/');
  assert.equal(index.status, 200);
  assert.equal(index.headers['content-type'], 'text/html; charset=utf-8');
  const app = await get('/dashboard/app.js');
  assert.equal(app.status, 200);
  assert.equal(app.headers['content-encoding'], 'gzip');
  assert.ok(app.bytes < 300 * 1024, `app.js is ${app.bytes} bytes compressed`);
  assert.equal((await get('/dashboard/nothing.js')).status, 404);
  const anonymous = await page.evaluate(async () => {
    const r = await fetch('/dashboard/api/placement/namespaces/default/pods/nothing', { credentials: 'omit' });
    return { status: r.status, body: await r.json() };
  });
  assert.equal(anonymous.status, 403);
  assert.equal(anonymous.body.message, 'pods "nothing" is forbidden: User "system:anonymous" cannot get resource "pods" in API group "" in the namespace "default"');
  const anonymousSummary = await page.evaluate(async () => {
    const r = await fetch('/dashboard/api/summary', { credentials: 'omit' });
    return { status: r.status, body: await r.json() };
  });
  assert.equal(anonymousSummary.status, 403);
  assert.equal(anonymousSummary.body.message, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope');
});

test('the seed DaemonSet shows one card on each eligible node', async () => {
  const ds = extractManifests(readFileSync(join(seedsDir, '000_79921c3a89c462f0.txt'), 'utf8')).find((y) => parse(y).metadata.name === 'fluentd-elasticsearch')!;
  await up.kubectl(['apply', '-f', '-'], ds);
  // It tolerates the control plane's NoSchedule taint: all three nodes are eligible.
  for (const node of ['control-plane', 'worker1', 'worker2']) {
    await eventually(async () => (await cardsIn(page, `node ${node}`)).filter((k) => k.startsWith('kube-system/fluentd-elasticsearch-')).length === 1, 30_000, `the DaemonSet's card on ${node}`);
    const group = page.locator(`section[aria-label="node ${node}"] [data-owner="DaemonSet/kube-system/fluentd-elasticsearch"]`);
    assert.equal(await group.count(), 1);
  }
  await eventually(async () => await page.locator('[data-pod^="kube-system/fluentd-elasticsearch-"].ready').count() === 3, 30_000, 'three Ready cards');
  await shot(page, 'daemonset');
});

test('a taint shows as a badge with its effect, and a NoExecute taint evicts the card', async () => {
  await kubectl('run', 'plain', '--image=busybox', '--overrides={"spec":{"nodeName":"worker2"}}');
  await eventually(async () => (await cardsIn(page, 'node worker2')).includes('default/plain'), 20_000, 'the plain pod on worker2');
  await kubectl('taint', 'nodes', 'worker2', 'dedicated=demo:NoSchedule');
  await page.waitForSelector('section[aria-label="node worker2"] [data-taint="dedicated=demo:NoSchedule"]');
  // NoSchedule leaves running pods alone.
  assert.ok((await cardsIn(page, 'node worker2')).includes('default/plain'));
  await kubectl('taint', 'nodes', 'worker2', 'evict=now:NoExecute');
  await page.waitForSelector('section[aria-label="node worker2"] [data-taint="evict=now:NoExecute"]');
  await eventually(async () => {
    const cards = await cardsIn(page, 'node worker2');
    return !cards.includes('default/plain') && !cards.some((k) => k.startsWith('kube-system/fluentd-elasticsearch-'));
  }, 30_000, 'the NoExecute eviction of worker2\'s cards');
  await shot(page, 'taints');
  await kubectl('taint', 'nodes', 'worker2', 'evict=now:NoExecute-', 'dedicated=demo:NoSchedule-');
  await eventually(async () => await page.locator('section[aria-label="node worker2"] [data-taint]').count() === 0, 10_000, 'the badges gone');
});

test('a StatefulSet scaled 3→5→2 shows its pods in ordinal order and its ordered events', async () => {
  const sts = extractManifests(readFileSync(join(seedsDir, '001_039ba886abd0a3e0.txt'), 'utf8')).find((y) => parse(y).metadata.name === 'muzzi')!;
  await up.kubectl(['apply', '-f', '-'], sts);
  const ordinals = async () => {
    const nums: number[][] = [];
    for (const col of ['node control-plane', 'node worker1', 'node worker2']) {
      nums.push((await cardsIn(page, col)).filter((k) => k.startsWith('default/muzzi-')).map((k) => Number(k.slice('default/muzzi-'.length))));
    }
    return nums;
  };
  const expectOrdinals = async (want: number[]) => eventually(async () => {
    const cols = await ordinals();
    // Within each node's column, the StatefulSet's cards are in ordinal order.
    for (const c of cols) assert.deepEqual(c, [...c].sort((a, b) => a - b));
    return JSON.stringify(cols.flat().sort((a, b) => a - b)) === JSON.stringify(want);
  }, 60_000, `ordinals ${want}`);
  await expectOrdinals([0, 1, 2]);
  await kubectl('scale', 'statefulset', 'muzzi', '--replicas=5');
  await expectOrdinals([0, 1, 2, 3, 4]);
  await kubectl('scale', 'statefulset', 'muzzi', '--replicas=2');
  await expectOrdinals([0, 1]);
  await page.locator('[data-owner="StatefulSet/default/muzzi"]').first().click();
  const timeline = page.locator('aside[aria-label="StatefulSet default/muzzi"] .timeline li');
  await eventually(async () => await timeline.count() >= 8, 20_000, 'the StatefulSet\'s eight events');
  const texts = await timeline.allTextContents();
  const order = texts.map((t) => /(create|delete) Pod muzzi-(\d)/.exec(t)).filter((m) => m).map((m) => `${m![1]} ${m![2]}`);
  // Created 0,1,2 then 3,4 in order; scaled down from the highest ordinal first.
  assert.deepEqual(order, ['create 0', 'create 1', 'create 2', 'create 3', 'create 4', 'delete 4', 'delete 3', 'delete 2']);
  await shot(page, 'statefulset');
  await page.keyboard.press('Escape');
  await page.locator('aside .details-head button').click();
});

test('a pending pod shows each node\'s reason, from the scheduler\'s own filters', async () => {
  await kubectl('run', 'too-big', '--image=busybox', '--overrides={"spec":{"containers":[{"name":"too-big","image":"busybox","resources":{"requests":{"cpu":"100"}}}]}}');
  await eventually(async () => (await cardsIn(page, 'pending pods')).includes('default/too-big'), 10_000, 'the pending card');
  // Keyboard: the card is a button; focus it and press Enter.
  await page.focus('[data-pod="default/too-big"]');
  await page.keyboard.press('Enter');
  const row = (node: string) => page.locator(`aside [data-placement-node="${node}"]`);
  await page.waitForSelector('aside [data-placement-node="worker1"]');
  assert.match(await row('control-plane').innerText(), /TaintToleration: node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}/);
  for (const node of ['control-plane', 'worker1', 'worker2']) {
    assert.match(await row(node).innerText(), /does not fit\s+.*NodeResourcesFit: Insufficient cpu/s);
  }
  // The scheduler's own message (its FailedScheduling event) says the same, folded.
  await eventually(async () => /0\/3 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 3 Insufficient cpu|0\/3 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 2 Insufficient cpu/.test(await page.locator('aside .timeline').innerText()), 20_000, 'the FailedScheduling event');
  await shot(page, 'placement');
  // The CLI prints the same verdicts.
  const { execFileSync } = await import('node:child_process');
  const { cliPath } = await import('./harness.js');
  const table = execFileSync(process.execPath, [cliPath, 'explain-placement', 'too-big', '--kubeconfig', up.kubeconfig], { encoding: 'utf8' });
  assert.match(table, /^control-plane\s+TaintToleration\s+Fail\s+node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}$/m);
  assert.match(table, /^worker1\s+NodeResourcesFit\s+Fail\s+Insufficient cpu$/m);
  assert.match(table, /pod default\/too-big fits 0\/3 nodes$/m);
  await page.locator('aside .details-head button').click();
});

test('the page\'s own actions: taint and cordon a node, with the kubectl command shown', async () => {
  const col = page.locator('section[aria-label="node worker1"]');
  await col.getByRole('button', { name: 'Taint…' }).click();
  const dialog = page.locator('dialog[aria-label="taint worker1"]');
  await dialog.locator('input[name=key]').fill('team');
  await dialog.locator('input[name=value]').fill('blue');
  await dialog.locator('select[name=effect]').selectOption('PreferNoSchedule');
  assert.equal(await dialog.locator('.command').innerText(), 'kubectl taint nodes worker1 team=blue:PreferNoSchedule');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await eventually(async () => (await kubectl('get', 'node', 'worker1', '-o', 'jsonpath={.spec.taints}')).stdout.includes('"key":"team"'), 10_000, 'the taint written');
  await col.locator('[data-taint="team=blue:PreferNoSchedule"]').waitFor();
  await col.getByRole('button', { name: 'Cordon' }).click();
  assert.equal(await page.locator('dialog[aria-label="cordon worker1"] .command').innerText(), 'kubectl cordon worker1');
  await page.locator('dialog[aria-label="cordon worker1"]').getByRole('button', { name: 'Confirm' }).click();
  await col.locator('.cordoned').waitFor();
  assert.equal((await kubectl('get', 'node', 'worker1', '-o', 'jsonpath={.spec.unschedulable}')).stdout, 'true');
  await col.getByRole('button', { name: 'remove taint team=blue:PreferNoSchedule from worker1' }).click();
  assert.equal(await page.locator('dialog .command').innerText(), 'kubectl taint nodes worker1 team:PreferNoSchedule-');
  await page.locator('dialog').getByRole('button', { name: 'Confirm' }).click();
  await col.getByRole('button', { name: 'Uncordon' }).click();
  await page.locator('dialog').getByRole('button', { name: 'Confirm' }).click();
  await eventually(async () => (await kubectl('get', 'node', 'worker1', '-o', 'jsonpath={.spec.unschedulable}{.spec.taints}')).stdout === '', 10_000, 'worker1 untainted and uncordoned');
});

test('an RBAC-limited token sees only its namespace and has no node actions', async () => {
  await kubectl('create', 'namespace', 'team-a');
  await kubectl('create', 'serviceaccount', 'viewer', '-n', 'team-a');
  await kubectl('create', 'role', 'pod-viewer', '-n', 'team-a', '--verb=get,list,watch', '--resource=pods,events');
  await kubectl('create', 'rolebinding', 'viewer', '-n', 'team-a', '--role=pod-viewer', '--serviceaccount=team-a:viewer');
  await kubectl('run', 'mine', '-n', 'team-a', '--image=busybox');
  const token = (await kubectl('create', 'token', 'viewer', '-n', 'team-a')).stdout.trim();
  const limited = await loggedInPage(browser, dashboard, token);
  try {
    await limited.waitForSelector('[data-pod="team-a/mine"]', { timeout: 20_000 });
    assert.equal(await limited.locator('header .scope').innerText(), 'namespace team-a');
    const keys = await limited.locator('[data-pod]').evaluateAll((els) => els.map((e) => e.getAttribute('data-pod')!));
    assert.ok(keys.length > 0 && keys.every((k) => k.startsWith('team-a/')), `only team-a pods: ${keys}`);
    assert.equal(await limited.getByRole('button', { name: 'Taint…' }).count(), 0);
    assert.equal(await limited.getByRole('button', { name: /^(Drain…|Delete…)$/ }).count(), 0);
    assert.equal(await limited.getByRole('button', { name: /^(Cordon|Uncordon)$/ }).count(), 0);
    // And the API refuses it if it tries anyway, in upstream's words.
    const refused = await limited.evaluate(async (t) => {
      const r = await fetch('/api/v1/nodes/worker1', { method: 'PATCH', headers: { Authorization: `Bearer ${t}`, 'Content-Type': 'application/merge-patch+json' }, body: '{"spec":{"unschedulable":true}}' });
      return { status: r.status, message: (await r.json()).message };
    }, token);
    assert.equal(refused.status, 403);
    assert.equal(refused.message, 'nodes "worker1" is forbidden: User "system:serviceaccount:team-a:viewer" cannot patch resource "nodes" in API group "" at the cluster scope');
    // The pod summary answers as the pods list it stands for: its namespace's counts, a 403 elsewhere.
    const summary = (q: string) => limited.evaluate(async ([query, t]) => {
      const r = await fetch(`/dashboard/api/summary${query}`, { headers: { Authorization: `Bearer ${t}` } });
      return { status: r.status, body: await r.json() };
    }, [q, token] as const);
    const mine = await summary('?namespace=team-a');
    assert.equal(mine.status, 200);
    const groups = Object.values(mine.body.nodes as Record<string, Array<{ namespace: string; counts: number[] }>>).flat();
    assert.ok(groups.length > 0 && groups.every((g) => g.namespace === 'team-a'), `team-a's counts only: ${JSON.stringify(mine.body.nodes)}`);
    assert.equal(groups.reduce((n, g) => n + g.counts.reduce((a, b) => a + b, 0), 0), 1, 'one pod in team-a');
    const all = await summary('');
    assert.equal(all.status, 403);
    assert.equal(all.body.message, 'pods is forbidden: User "system:serviceaccount:team-a:viewer" cannot list resource "pods" in API group "" at the cluster scope');
    const other = await summary('?namespace=default&watch=1');
    assert.equal(other.status, 403);
    assert.equal(other.body.message, 'pods is forbidden: User "system:serviceaccount:team-a:viewer" cannot watch resource "pods" in API group "" in the namespace "default"');
    const columns = await summary('/pods?node=worker1');
    assert.equal(columns.status, 403);
    assert.equal(columns.body.message, 'pods is forbidden: User "system:serviceaccount:team-a:viewer" cannot list resource "pods" in API group "" at the cluster scope');
    // Its placement question is refused at the nodes list, by the API.
    await limited.click('[data-pod="team-a/mine"]');
    await limited.waitForSelector('aside [aria-label="placement"] [role=alert]');
    assert.match(await limited.locator('aside [aria-label="placement"] [role=alert]').innerText(), /nodes is forbidden: User "system:serviceaccount:team-a:viewer" cannot list resource "nodes"/);
    // No pods/exec: no terminal; and the exec WebSocket is refused, as exec-check reports in the API's words.
    assert.equal(await limited.locator('aside [aria-label="terminal"]').count(), 0);
    const exec = await limited.evaluate(async (t) => {
      const r = await fetch('/dashboard/api/exec-check/namespaces/team-a/pods/mine', { headers: { Authorization: `Bearer ${t}` } });
      return { status: r.status, message: (await r.json()).message };
    }, token);
    assert.equal(exec.status, 403);
    assert.match(exec.message, /^pods "mine" is forbidden: User "system:serviceaccount:team-a:viewer" cannot (create|get) resource "pods\/exec" in API group "" in the namespace "team-a"$/);
    await shot(limited, 'rbac-limited');
  } finally {
    await limited.context().close();
  }
});

test('a pod\'s log follows in its details, as kubectl logs -f shows it', async () => {
  await kubectl('run', 'chatty', '--image=busybox');
  await eventually(async () => (await kubectl('get', 'pod', 'chatty', '-o', 'jsonpath={.status.phase}')).stdout === 'Running', 20_000, 'chatty running');
  await page.click('[data-pod="default/chatty"]');
  const logs = page.locator('aside [aria-label="logs"]');
  assert.equal(await logs.locator('.command').innerText(), 'kubectl logs -f --tail=200 -n default chatty');
  const expected = (await kubectl('logs', 'chatty')).stdout;
  assert.match(expected, /Started container chatty/);
  await eventually(async () => (await logs.locator('pre').innerText()).includes('Started container chatty'), 10_000, 'the log in the page');
  assert.equal((await logs.locator('pre').innerText()).trim(), expected.trim());
  // Its terminal: the simulated node's simulated shell (src/kubelet/runtime/simulated/exec.ts) runs what is typed.
  const terminal = page.locator('aside [aria-label="terminal"]');
  await terminal.getByRole('button', { name: 'Open terminal' }).click();
  await terminal.locator('.exec-terminal[data-connected=true]').waitFor({ timeout: 30_000 });
  const rows = () => terminal.locator('.xterm-rows > div').evaluateAll((els) => els.map((r) => (r.textContent ?? '').replace(/\s+$/, '')));
  await terminal.locator('.xterm-helper-textarea').focus();
  await page.keyboard.type('echo $HOSTNAME');
  await page.keyboard.press('Enter');
  await eventually(async () => (await rows()).includes('chatty'), 30_000, 'the output in the terminal');
  await page.keyboard.type('exit');
  await page.keyboard.press('Enter');
  await terminal.locator('[data-exec-outcome]').waitFor({ timeout: 30_000 });
  assert.equal(await terminal.locator('[data-exec-outcome]').innerText(), 'exit code 0');
  await terminal.getByRole('button', { name: 'Close terminal' }).click();
  await page.locator('aside .details-head button').click();
});

test('Objects: every served resource; a ConfigMap as YAML, applied server-side, a conflict shown in upstream\'s words, then forced', async () => {
  await kubectl('create', 'configmap', 'dash-cm', '--from-literal=color=blue');
  await page.getByRole('button', { name: 'Objects' }).click();
  const picker = page.locator('select[aria-label=resource]');
  await eventually(async () => (await picker.locator('option').count()) > 40, 10_000, 'discovery read');
  const kinds = await picker.locator('option').allInnerTexts();
  for (const k of ['ConfigMap', 'Deployment (apps)', 'CustomResourceDefinition (apiextensions.k8s.io)', 'Node', 'StatefulSet (apps)']) assert.ok(kinds.includes(k), `${k} in ${kinds}`);
  await picker.selectOption('/configmaps');
  await page.getByRole('button', { name: 'dash-cm' }).click();
  const editor = page.locator('aside[aria-label="ConfigMap default/dash-cm"]');
  const yaml = editor.locator('textarea[aria-label=YAML]');
  await eventually(async () => (await yaml.inputValue()).includes('color: blue'), 10_000, 'the YAML');
  assert.ok(!(await yaml.inputValue()).includes('managedFields'), 'managedFields hidden as kubectl hides them');
  // A new key is ours alone: applied at once.
  await yaml.fill((await yaml.inputValue()).replace('color: blue', 'color: blue\n  size: big'));
  await editor.getByRole('button', { name: 'Apply', exact: true }).click();
  await editor.locator('[role=status]').waitFor();
  assert.equal(await editor.locator('[role=status]').innerText(), 'configmaps/dash-cm serverside-applied');
  assert.equal((await kubectl('get', 'configmap', 'dash-cm', '-o', 'jsonpath={.data.size}')).stdout, 'big');
  // color belongs to kubectl create: changing it is a conflict, shown as the API words it.
  await yaml.fill((await yaml.inputValue()).replace('color: blue', 'color: green'));
  await editor.getByRole('button', { name: 'Apply', exact: true }).click();
  await editor.locator('[role=alert]').waitFor();
  assert.equal(await editor.locator('[role=alert]').innerText(), 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.color');
  assert.equal((await kubectl('get', 'configmap', 'dash-cm', '-o', 'jsonpath={.data.color}')).stdout, 'blue');
  await shot(page, 'objects-conflict');
  await editor.getByRole('button', { name: 'Apply with --force-conflicts' }).click();
  await editor.locator('[role=status]').waitFor();
  assert.equal((await kubectl('get', 'configmap', 'dash-cm', '-o', 'jsonpath={.data.color}')).stdout, 'green');
  const managers = JSON.parse((await kubectl('get', 'configmap', 'dash-cm', '-o', 'json', '--show-managed-fields')).stdout).metadata.managedFields;
  assert.ok(managers.some((m: any) => m.manager === 'k8ts-dashboard' && m.operation === 'Apply'), JSON.stringify(managers));
  // A YAML mistake is said before anything is sent.
  await yaml.fill('data: [unclosed');
  await editor.getByRole('button', { name: 'Apply', exact: true }).click();
  await editor.locator('[role=alert]').waitFor();
  assert.match(await editor.locator('[role=alert]').innerText(), /^YAML: /);
  await editor.getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Cluster map' }).click();
  await page.waitForSelector('.map');
});

test('Objects: delete an object with kubectl delete\'s command shown, the uid as precondition', async () => {
  await kubectl('create', 'configmap', 'doomed', '--from-literal=a=b');
  await kubectl('create', 'configmap', 'reborn', '--from-literal=a=b');
  await page.getByRole('button', { name: 'Objects' }).click();
  const picker = page.locator('select[aria-label=resource]');
  await eventually(async () => (await picker.locator('option').count()) > 40, 10_000, 'discovery read');
  await picker.selectOption('/configmaps');
  const remove = async (name: string) => {
    await page.getByRole('button', { name, exact: true }).click();
    const editor = page.locator(`aside[aria-label="ConfigMap default/${name}"]`);
    await editor.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.locator(`dialog[aria-label="delete configmap default/${name}"]`);
    assert.equal(await dialog.locator('.command').innerText(), `kubectl delete configmap ${name} -n default`);
    return dialog;
  };
  const dialog = await remove('doomed');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await page.locator('.objects > [role=status]').waitFor();
  assert.equal(await page.locator('.objects > [role=status]').innerText(), 'configmap "doomed" deleted');
  assert.equal((await kubectl('get', 'configmap', 'doomed', '--ignore-not-found', '-o', 'name')).stdout, '');
  await page.getByRole('button', { name: 'doomed', exact: true }).waitFor({ state: 'detached' });
  // Deleted and created again behind the page's back: not the object the user confirmed, so the API refuses (409).
  const again = await remove('reborn');
  const uid = (await kubectl('get', 'configmap', 'reborn', '-o', 'jsonpath={.metadata.uid}')).stdout;
  await kubectl('delete', 'configmap', 'reborn');
  await kubectl('create', 'configmap', 'reborn', '--from-literal=a=c');
  await again.getByRole('button', { name: 'Confirm' }).click();
  await again.locator('[role=alert]').waitFor();
  assert.match(await again.locator('[role=alert]').innerText(), new RegExp(`^Operation cannot be fulfilled on configmaps "reborn": Precondition failed: UID in precondition: ${uid}, UID in object meta: `));
  assert.equal((await kubectl('get', 'configmap', 'reborn', '-o', 'jsonpath={.data.a}')).stdout, 'c', 'the new object stays');
  await again.getByRole('button', { name: 'Cancel' }).click();
  await page.locator('aside[aria-label="ConfigMap default/reborn"]').getByRole('button', { name: 'Close' }).click();
  await page.getByRole('button', { name: 'Cluster map' }).click();
  await page.waitForSelector('.map');
});

/** A Node with no kubelet behind it (what the simulated-node benchmarks create): nothing re-registers it. */
const bareNode = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, capacity: { cpu: '4', memory: '8Gi', pods: '110' } } });

test('drain: cordons, keeps the DaemonSet pod, refuses a bare pod without --force, waits on a PodDisruptionBudget, then evicts', async () => {
  await up.kubectl(['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'drainme' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'drainme' } }, template: { metadata: { labels: { app: 'drainme' } },
      spec: { nodeName: 'worker1', containers: [{ name: 'c', image: 'busybox' }] } } },
  }));
  await kubectl('run', 'lonely', '--image=busybox', '--overrides={"spec":{"nodeName":"worker1"}}');
  await kubectl('create', 'poddisruptionbudget', 'drainme', '--selector=app=drainme', '--min-available=2');
  await eventually(async () => (await kubectl('get', 'pdb', 'drainme', '-o', 'jsonpath={.status.currentHealthy}/{.status.disruptionsAllowed}')).stdout === '2/0', 60_000, 'the budget observed: 2 healthy, 0 disruptions allowed');
  const col = page.locator('section[aria-label="node worker1"]');
  await col.getByRole('button', { name: 'Drain…' }).click();
  const dialog = page.locator('dialog[aria-label="drain worker1"]');
  assert.equal(await dialog.locator('.command').innerText(), 'kubectl drain worker1 --ignore-daemonsets');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  const log = dialog.locator('[aria-label="drain output"]');
  await eventually(async () => /cannot delete Pods that declare no controller \(use --force to override\): [^\n]*default\/lonely/.test(await log.innerText().catch(() => '')), 20_000, 'the bare pod refused');
  assert.match(await log.innerText(), /^node\/worker1 cordoned$/m);
  assert.equal((await kubectl('get', 'node', 'worker1', '-o', 'jsonpath={.spec.unschedulable}')).stdout, 'true');
  assert.equal((await kubectl('get', 'pod', 'lonely', '-o', 'name')).stdout.trim(), 'pod/lonely', 'nothing evicted after a refusal');
  await dialog.locator('input[name=force]').check();
  assert.equal(await dialog.locator('.command').innerText(), 'kubectl drain worker1 --ignore-daemonsets --force');
  await dialog.getByRole('button', { name: 'Retry' }).click();
  await eventually(async () => (await log.innerText()).includes('Cannot evict pod as it would violate the pod\'s disruption budget.'), 30_000, 'the budget\'s 429');
  const text = await log.innerText();
  assert.match(text, /^Warning: ignoring DaemonSet-managed Pods: kube-system\/fluentd-elasticsearch-/m);
  assert.match(text, /^error when evicting pods\/"drainme-[a-z0-9-]+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\.$/m);
  await eventually(async () => (await kubectl('get', 'pod', 'lonely', '--ignore-not-found', '-o', 'name')).stdout === '', 30_000, 'the bare pod evicted (--force)');
  await shot(page, 'drain');
  await kubectl('delete', 'pdb', 'drainme');
  await eventually(async () => /^node\/worker1 drained$/m.test(await log.innerText()), 60_000, 'the drain finished once the budget was gone');
  // The DaemonSet's pod stays on the drained node.
  assert.ok((await cardsIn(page, 'node worker1')).some((k) => k.startsWith('kube-system/fluentd-elasticsearch-')));
  await dialog.getByRole('button', { name: 'Close' }).click();
  await kubectl('delete', 'deployment', 'drainme');
  await kubectl('uncordon', 'worker1');
});

test('delete node: a confirmation with kubectl delete node, and the node\'s details go', async () => {
  await up.kubectl(['apply', '-f', '-'], JSON.stringify(bareNode('spare')));
  const col = page.locator('section[aria-label="node spare"]');
  await col.waitFor();
  await col.getByRole('button', { name: 'Delete…' }).click();
  const dialog = page.locator('dialog[aria-label="delete spare"]');
  assert.equal(await dialog.locator('.command').innerText(), 'kubectl delete node spare');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.waitFor({ state: 'detached' });
  assert.equal((await kubectl('get', 'node', 'spare', '--ignore-not-found', '-o', 'name')).stdout, '');
  // The node's details go at once; the column itself stays while pods still name the node (the DaemonSet's, until the
  // pod garbage collector removes orphans), as for any node the page cannot read.
  await col.locator('.node-facts').waitFor({ state: 'detached' });
});

test('a Deployment from its panel: scale (the scale subresource), rollout restart, rollout undo (to the previous and to a chosen revision), pause and resume', async () => {
  await kubectl('create', 'deployment', 'web', '--image=busybox', '--replicas=1');
  await page.locator('[data-owner="Deployment/default/web"]').first().waitFor({ timeout: 30_000 });
  await page.locator('[data-owner="Deployment/default/web"]').first().click();
  const panel = page.locator('aside[aria-label="Deployment default/web"]');
  const act = async (button: string, dialogLabel: string, command: string, done: string, fill?: () => Promise<void>) => {
    await panel.getByRole('button', { name: button }).click();
    const dialog = page.locator(`dialog[aria-label="${dialogLabel}"]`);
    try {
      await dialog.locator('.confirm:not([disabled])').waitFor();
      if (fill) await fill();
      assert.equal(await dialog.locator('.command').innerText(), command);
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      await dialog.locator('[role=status], [role=alert]').waitFor();
      assert.equal(await dialog.locator('[role=status], [role=alert]').innerText(), done);
    } finally {
      // Closed whatever happened, so a failure here does not leave a modal over the page for the next test.
      await dialog.locator('.dialog-buttons button').first().click();
    }
  };
  await act('Scale…', 'scale Deployment default/web', 'kubectl scale deployment/web --replicas=3 -n default', 'deployment.apps/web scaled',
    () => page.locator('dialog input[name=replicas]').fill('3'));
  await eventually(async () => await page.locator('[data-pod^="default/web-"]').count() === 3, 30_000, 'three web cards');
  await act('Restart…', 'restart Deployment default/web', 'kubectl rollout restart deployment/web -n default', 'deployment.apps/web restarted');
  const restartedAt = async () => (await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}')).stdout;
  assert.match(await restartedAt(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  await eventually(async () => (await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}')).stdout === '2', 30_000, 'revision 2');
  await act('Undo rollout…', 'undo Deployment default/web', 'kubectl rollout undo deployment/web -n default', 'deployment.apps/web rolled back');
  assert.equal(await restartedAt(), '', 'the template of revision 1 again');
  await eventually(async () => (await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}')).stdout === '3', 30_000, 'revision 1 re-used as 3');
  // kubectl rollout undo --to-revision=2: chosen from the history (revisions 2 and 3 now).
  await act('Undo rollout…', 'undo Deployment default/web', 'kubectl rollout undo deployment/web --to-revision=2 -n default', 'deployment.apps/web rolled back',
    async () => {
      const rows = page.locator('dialog [data-revision]');
      assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-revision'))), ['2', '3']);
      assert.match(await rows.last().innerText(), /3 \(current\)\s+<none>/);
      await page.locator('dialog input[name=revision][value="2"]').check();
    });
  await eventually(async () => /^\d{4}-/.test(await restartedAt()), 10_000, 'the template of revision 2 again');
  await eventually(async () => (await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}')).stdout === '4', 30_000, 'revision 2 re-used as 4');
  // kubectl rollout pause: a paused Deployment refuses an undo in kubectl's words; resume.
  await act('Pause rollout…', 'pause Deployment default/web', 'kubectl rollout pause deployment/web -n default', 'deployment.apps/web paused');
  assert.equal((await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.paused}')).stdout, 'true');
  await act('Undo rollout…', 'undo Deployment default/web', 'kubectl rollout undo deployment/web -n default',
    "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again");
  await act('Resume rollout…', 'resume Deployment default/web', 'kubectl rollout resume deployment/web -n default', 'deployment.apps/web resumed');
  assert.equal((await kubectl('get', 'deployment', 'web', '-o', 'jsonpath={.spec.paused}')).stdout, '');
  await panel.getByRole('button', { name: 'Pause rollout…' }).waitFor();
  await panel.getByRole('button', { name: 'Close' }).click();
  await kubectl('delete', 'deployment', 'web');
});

test('a StatefulSet from its panel: rollout undo to a chosen ControllerRevision', async () => {
  // muzzi (the StatefulSet test's) gets a second revision.
  await kubectl('set', 'env', 'statefulset/muzzi', 'DASH_REVISION=2');
  const revisions = async () => (await kubectl('get', 'controllerrevisions', '-o', 'jsonpath={.items[*].revision}')).stdout.split(' ').filter(Boolean).sort();
  await eventually(async () => JSON.stringify(await revisions()) === '["1","2"]', 30_000, 'ControllerRevisions 1 and 2');
  await page.locator('[data-owner="StatefulSet/default/muzzi"]').first().click();
  const panel = page.locator('aside[aria-label="StatefulSet default/muzzi"]');
  await panel.getByRole('button', { name: 'Undo rollout…' }).click();
  const dialog = page.locator('dialog[aria-label="undo StatefulSet default/muzzi"]');
  try {
    await dialog.locator('.confirm:not([disabled])').waitFor();
    assert.deepEqual(await dialog.locator('[data-revision]').evaluateAll((els) => els.map((e) => e.getAttribute('data-revision'))), ['1', '2']);
    assert.equal(await panel.getByRole('button', { name: /^(Pause|Resume) rollout…$/ }).count(), 0, 'pause/resume is a Deployment\'s');
    await dialog.locator('input[name=revision][value="1"]').check();
    assert.equal(await dialog.locator('.command').innerText(), 'kubectl rollout undo statefulset/muzzi --to-revision=1 -n default');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.locator('[role=status], [role=alert]').waitFor();
    assert.equal(await dialog.locator('[role=status], [role=alert]').innerText(), 'statefulset.apps/muzzi rolled back');
  } finally {
    await dialog.locator('.dialog-buttons button').first().click();
  }
  assert.equal((await kubectl('get', 'statefulset', 'muzzi', '-o', 'jsonpath={.spec.template.spec.containers[0].env}')).stdout, '', 'revision 1\'s template again');
  await panel.getByRole('button', { name: 'Close' }).click();
});

test('the map at scale: only the columns in view are drawn, the filter finds any node, a large group is counted', async () => {
  const names = Array.from({ length: 80 }, (_, i) => `virt-${String(i).padStart(3, '0')}`);
  const nodeCount = async () => Number(/(\d+) nodes/.exec(await page.locator('header .counts').innerText())![1]);
  const before = await nodeCount();
  await up.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: names.map(bareNode) }));
  await eventually(async () => await nodeCount() === before + 80, 30_000, `${before + 80} nodes counted`);
  const drawn = await page.locator('.map section[aria-label^="node "]').count();
  assert.ok(drawn < 20, `${drawn} node columns drawn of ${before + 80}`);
  assert.equal(await page.locator('section[aria-label="node virt-079"]').count(), 0);
  // Scrolled to the end, the last columns are drawn (and the first are not).
  await page.locator('.map').evaluate((m) => { m.scrollLeft = m.scrollWidth; });
  await page.locator('section[aria-label="node worker2"]').waitFor();
  await page.locator('section[aria-label="pending pods"]').waitFor({ state: 'detached' });
  await page.locator('.map').evaluate((m) => { m.scrollLeft = 0; });
  await page.locator('input[aria-label="filter nodes"]').fill('virt-042');
  await page.locator('section[aria-label="node virt-042"]').waitFor();
  // 30 pods on one node (no kubelet: they stay Pending there): 24 cards, the rest counted.
  await up.kubectl(['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'many' },
    spec: { replicas: 30, selector: { matchLabels: { app: 'many' } }, template: { metadata: { labels: { app: 'many' } },
      spec: { nodeName: 'virt-042', tolerations: [{ operator: 'Exists' }], containers: [{ name: 'c', image: 'busybox' }] } } },
  }));
  const more = page.locator('section[aria-label="node virt-042"] [data-more="Deployment/default/many"]');
  await eventually(async () => (await more.count()) === 1 && (await more.innerText()) === '+6 more: 6 pending', 60_000, 'six pods counted, not drawn');
  assert.equal((await cardsIn(page, 'node virt-042')).filter((k) => k.startsWith('default/many-')).length, 24);
  // The six come from the server's summary, which counts the group whole; the column's pods from its by-node index.
  const counted = await page.evaluate(async () => {
    const auth = { Authorization: `Bearer ${sessionStorage.getItem('k8ts-dashboard-token')}` };
    const summary = await (await fetch('/dashboard/api/summary', { headers: auth })).json();
    const column = await (await fetch('/dashboard/api/summary/pods?node=virt-042&node=virt-041', { headers: auth })).json();
    return { summary, column };
  });
  assert.deepEqual(counted.summary.states, ['ready', 'running', 'pending', 'succeeded', 'failed', 'terminating']);
  // (The seed DaemonSet has a pod on every node too.)
  const groups = counted.summary.nodes['virt-042'] as Array<{ kind: string; namespace: string; name: string; counts: number[] }>;
  assert.deepEqual(groups.find((g) => g.name === 'many'), { kind: 'Deployment', namespace: 'default', name: 'many', counts: [0, 0, 30, 0, 0, 0] });
  const column = counted.column.columns['virt-042'] as { items: Array<{ metadata: { name: string } }>; total: number };
  assert.equal(column.total, groups.reduce((n, g) => n + g.counts.reduce((a, b) => a + b, 0), 0), 'the column holds what the summary counts');
  assert.equal(column.items.length, column.total);
  assert.equal(column.items.filter((p) => p.metadata.name.startsWith('many-')).length, 30);
  assert.equal(counted.column.columns['virt-041'].items.every((p: { spec: { nodeName: string } }) => p.spec.nodeName === 'virt-041'), true);
  assert.ok(Number(counted.column.resourceVersion) > 0);
  await shot(page, 'scale');
  await page.locator('input[aria-label="filter nodes"]').fill('');
  await kubectl('delete', 'deployment', 'many');
  await kubectl('delete', 'nodes', ...names);
});

test('join tokens: create with a TTL, the join command with the CA pin, delete', async () => {
  await page.getByRole('button', { name: 'Join tokens' }).click();
  const view = page.locator('section[aria-label="join tokens"]');
  await view.locator('input[name=ttl]').fill('2h');
  await view.locator('input[name=description]').fill('from the page');
  await view.getByRole('button', { name: 'Create token…' }).click();
  const command = await page.locator('dialog[aria-label="token action"] .command').innerText();
  const m = /^k8ts token create ([a-z0-9]{6})\.([a-z0-9]{16}) --ttl 2h --description "from the page"$/.exec(command);
  assert.ok(m, command);
  await page.locator('dialog[aria-label="token action"]').getByRole('button', { name: 'Confirm' }).click();
  const row = view.locator(`tr[data-token="${m[1]}"]`);
  await row.waitFor();
  const secret = JSON.parse((await kubectl('get', 'secret', '-n', 'kube-system', `bootstrap-token-${m[1]}`, '-o', 'json')).stdout);
  assert.equal(secret.type, 'bootstrap.kubernetes.io/token');
  assert.equal(Buffer.from(secret.data['token-secret'], 'base64').toString(), m[2]);
  assert.equal(Buffer.from(secret.data['auth-extra-groups'], 'base64').toString(), 'system:bootstrappers:kubeadm:default-node-token');
  const expires = Date.parse(Buffer.from(secret.data.expiration, 'base64').toString());
  assert.ok(Math.abs(expires - Date.now() - 2 * 3600_000) < 10 * 60_000, 'expires in two hours');
  assert.match(await row.innerText(), /\b2h\b[\s\S]*authentication,signing[\s\S]*from the page/);
  // The pin is kubeadm's: SHA-256 of the cluster CA's public key, as the CLI computes it.
  const { caCertHash } = await import('../../src/pki/index.js');
  const cfg = parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster;
  const pin = caCertHash(Buffer.from(cfg['certificate-authority-data'], 'base64').toString());
  assert.equal(await row.locator('code.join').innerText(), `k8ts join ${cfg.server.replace('https://', '')} --token ${m[1]}.${m[2]} --discovery-token-ca-cert-hash ${pin}`);
  await row.getByRole('button', { name: `delete token ${m[1]}` }).click();
  assert.equal(await page.locator('dialog[aria-label="token action"] .command').innerText(), `k8ts token delete ${m[1]}`);
  await page.locator('dialog[aria-label="token action"]').getByRole('button', { name: 'Confirm' }).click();
  await row.waitFor({ state: 'detached' });
  assert.equal((await kubectl('get', 'secret', '-n', 'kube-system', `bootstrap-token-${m[1]}`, '--ignore-not-found', '-o', 'name')).stdout, '');
  await page.getByRole('button', { name: 'Cluster map' }).click();
});

test('the counts strip shows what kubectl get pods -A reports, by phase and by owner', async () => {
  const { ownerOf } = await import('../../src/api/pod-card.js');
  // A Job's pod and a bare pod beside the seed's DaemonSet and StatefulSet pods, so more kinds are counted.
  await kubectl('create', 'job', 'counted', '--image=busybox');
  await kubectl('run', 'counted-bare', '--image=busybox');
  const fromKubectl = async () => {
    const pods = JSON.parse((await kubectl('get', 'pods', '-A', '-o', 'json')).stdout).items as Array<Parameters<typeof ownerOf>[0]>;
    const want: Record<string, number> = { pods: pods.length };
    for (const p of pods) {
      const phase = `phase/${p.status?.phase ?? 'Pending'}`;
      const owner = `owner/${ownerOf(p).kind}`;
      want[phase] = (want[phase] ?? 0) + 1;
      want[owner] = (want[owner] ?? 0) + 1;
    }
    return want;
  };
  const fromStrip = () => page.locator('.counts-strip [data-count]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-count')!, Number(e.querySelector('strong')!.textContent)])));
  let last: unknown;
  // Pods keep changing (the Job runs, the simulated kubelet reports): equal at one moment is what is asked.
  await eventually(async () => {
    const [strip, want] = [await fromStrip(), await fromKubectl()];
    last = { strip, want };
    return JSON.stringify(Object.entries(strip).sort()) === JSON.stringify(Object.entries(want).sort());
  }, 30_000, 'the strip to match kubectl', () => JSON.stringify(last));
  const strip = await fromStrip();
  assert.ok(strip['owner/Job'] >= 1 && strip['owner/Pod'] >= 1 && strip['owner/DaemonSet'] >= 1, JSON.stringify(strip));
  await shot(page, 'counts');
  await kubectl('delete', 'job', 'counted');
  await kubectl('delete', 'pod', 'counted-bare', '--wait=false');
});

test('the dashboard API gzips its answers for a client that accepts it, the same JSON decoded', async () => {
  const { gunzipSync, createGunzip } = await import('node:zlib');
  const ca = Buffer.from(parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster['certificate-authority-data'], 'base64');
  const token = await page.evaluate(() => sessionStorage.getItem('k8ts-dashboard-token'));
  const get = (path: string, gzip: boolean) => new Promise<{ encoding?: string; vary?: string; body: Buffer }>((resolve, reject) => {
    https.get(new URL(path, dashboard), { ca, headers: { Authorization: `Bearer ${token}`, ...(gzip ? { 'Accept-Encoding': 'gzip, deflate' } : {}) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => (res.statusCode === 200 ? resolve({ encoding: res.headers['content-encoding'], vary: res.headers.vary as string, body: Buffer.concat(parts) })
        : reject(new Error(`${path}: ${res.statusCode}`))));
    }).on('error', reject);
  });
  for (const path of ['/dashboard/api/summary', '/dashboard/api/summary/pods?node=control-plane&node=worker1&node=worker2']) {
    // The pods change meanwhile: the two answers are compared when they are of the same resourceVersion.
    await eventually(async () => {
      const zipped = await get(path, true);
      const plain = await get(path, false);
      assert.equal(zipped.encoding, 'gzip', path);
      assert.equal(zipped.vary, 'Accept-Encoding');
      assert.equal(plain.encoding, undefined, 'no Accept-Encoding: identity');
      assert.ok(zipped.body.length < plain.body.length, `${path}: ${zipped.body.length} gzipped, ${plain.body.length} plain`);
      const [a, b] = [JSON.parse(gunzipSync(zipped.body).toString()), JSON.parse(plain.body.toString())];
      if (a.resourceVersion !== b.resourceVersion) return false;
      assert.deepEqual(a, b);
      return true;
    }, 30_000, `${path}: two answers of one resourceVersion`);
  }
  // The watch is gzipped too, flushed a line at a time: its first line decodes before the stream ends.
  const firstLine = () => new Promise<{ type: string; object: { kind: string; totals: { pods: number } } }>((resolve, reject) => {
    const req = https.get(new URL('/dashboard/api/summary?watch=1', dashboard), { ca, headers: { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'gzip' } }, (res) => {
      if (res.headers['content-encoding'] !== 'gzip') reject(new Error(`watch: Content-Encoding ${res.headers['content-encoding']}`));
      let text = '';
      res.pipe(createGunzip()).on('data', (d: Buffer) => {
        text += d.toString();
        const nl = text.indexOf('\n');
        if (nl >= 0) { resolve(JSON.parse(text.slice(0, nl))); req.destroy(); }
      }).on('error', () => undefined);
    });
    req.on('error', reject);
  });
  const first = await firstLine();
  assert.equal(first.type, 'SNAPSHOT');
  assert.equal(first.object.kind, 'PodSummary');
  // And it stays live past its first line: a pod created after the SNAPSHOT comes as a NODES line with new totals
  // (in a namespace of its own, so that nothing else the cluster does moves its count).
  await kubectl('create', 'namespace', 'gzip-live');
  const lines: Array<{ type: string; object: { totals: { pods: number } } }> = [];
  const watch = https.get(new URL('/dashboard/api/summary?watch=1&namespace=gzip-live', dashboard), { ca, headers: { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'gzip' } }, (res) => {
    let text = '';
    res.pipe(createGunzip()).on('data', (d: Buffer) => {
      text += d.toString();
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) { lines.push(JSON.parse(text.slice(0, nl))); text = text.slice(nl + 1); }
    }).on('error', () => undefined);
  });
  watch.on('error', () => undefined);
  try {
    await eventually(async () => lines.length > 0, 10_000, 'the SNAPSHOT line');
    assert.equal(lines[0].object.totals.pods, 0);
    await kubectl('run', 'gzip-live', '-n', 'gzip-live', '--image=busybox');
    await eventually(async () => lines.some((l) => l.type === 'NODES' && l.object.totals.pods === 1), 30_000, 'a NODES line counting the new pod',
      () => JSON.stringify(lines.slice(1).map((l) => [l.type, l.object.totals.pods])));
  } finally {
    watch.destroy();
    await kubectl('delete', 'namespace', 'gzip-live', '--wait=false');
  }
  await eventually(async () => (await firstLine()).object.totals.pods === JSON.parse((await kubectl('get', 'pods', '-A', '-o', 'json')).stdout).items.length,
    30_000, 'the watch\'s totals to count what kubectl lists');
});
