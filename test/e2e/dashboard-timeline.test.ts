/**
 * The dashboard's whole-cluster timeline and replay in a real browser
 * (dashboard-browser.ts) against `k8ts up` (three simulated nodes), the
 * cluster changed with the real kubectl: a StatefulSet scaled 0→3 created in
 * ordinal order, a NoExecute taint's evictions, the node lifecycle
 * controller's events for a node without a kubelet (RegisteredNode,
 * NodeNotReady, RemovingNode), the map replayed at earlier points, a
 * namespace-limited token's timeline, and a Timeline opened before the pod
 * summary's first answer (held back, as a loaded server delays it).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Browser, Page } from 'playwright-core';
import { eventually, repoRoot } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { launchBrowser, loggedInPage } from './dashboard-browser.js';

let up: UpCluster;
let browser: Browser;
let page: Page;
let dashboard: string;

/** Screenshots into docs/dashboard with K8TS_SCREENSHOTS=docs, else into a temporary folder. */
const shotsDir = process.env.K8TS_SCREENSHOTS === 'docs' ? join(repoRoot, 'docs', 'dashboard') : mkdtempSync(join(tmpdir(), 'k8ts-timeline-shots-'));
const kubectl = (...args: string[]) => up.kubectl(args);

interface Line { source: string; kind: string; namespace: string; name: string; reason: string; text: string }

/** The timeline's lines as drawn, oldest first. */
const lines = (p: Page) => p.locator('.cluster-timeline li[data-entry]').evaluateAll((els) => els.map((e) => {
  const d = (e as HTMLElement).dataset;
  return { source: d.entry!, kind: d.kind!, namespace: d.namespace!, name: d.name!, reason: d.reason!, text: e.textContent ?? '' };
}));

/** Narrows the timeline with its own controls. */
async function filterTo(p: Page, f: { namespace?: string; kind?: string; name?: string }) {
  const view = p.locator('section[aria-label="timeline"]');
  await eventually(async () => {
    // The selects list what has been seen; wait until the wanted value is offered.
    // (Preact sets an option's value as a property, not an attribute: read the property.)
    const offered = (select: string) => view.locator(`select[name=${select}] option`).evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    if (f.namespace && !(await offered('namespace')).includes(f.namespace)) return false;
    if (f.kind && !(await offered('kind')).includes(f.kind)) return false;
    return true;
  }, 30_000, `the filter's options ${JSON.stringify(f)}`);
  await view.locator('select[name=namespace]').selectOption(f.namespace ?? '');
  await view.locator('select[name=kind]').selectOption(f.kind ?? '');
  await view.locator('input[name=name]').fill(f.name ?? '');
}

/** On a timeout: what the page reports (its alerts) beside what the server holds, so a CI log says which side lost the Events. */
const evidenceOf = async (p: Page) => {
  const alerts = await p.locator('section[aria-label="timeline"] [role=alert]').allTextContents().catch((e) => [`(no alerts read: ${e})`]);
  const drawn = (await lines(p).catch(() => [])).filter((e) => e.source === 'event').length;
  const stored = (await kubectl('get', 'events', '-A', '--no-headers').catch(() => ({ stdout: '' }))).stdout.trim().split('\n').filter(Boolean).length;
  return `page alerts: ${JSON.stringify(alerts)}; Event lines drawn: ${drawn}; Events stored: ${stored}`;
};
const timelineEvidence = () => evidenceOf(page);

/** A token that may read pods and Events in `namespace` only (created with it). */
async function namespaceViewerToken(namespace: string): Promise<string> {
  await kubectl('create', 'namespace', namespace);
  await kubectl('create', 'serviceaccount', 'viewer', '-n', namespace);
  await kubectl('create', 'role', 'viewer', '-n', namespace, '--verb=get,list,watch', '--resource=pods,events');
  await kubectl('create', 'rolebinding', 'viewer', '-n', namespace, '--role=viewer', `--serviceaccount=${namespace}:viewer`);
  return (await kubectl('create', 'token', 'viewer', '-n', namespace)).stdout.trim();
}

const ghostNode = {
  apiVersion: 'v1', kind: 'Node',
  metadata: { name: 'ghost', labels: { 'kubernetes.io/hostname': 'ghost' } },
  // No kubelet will run it: nothing may be scheduled there.
  spec: { unschedulable: true, taints: [{ key: 'ghost', value: 'true', effect: 'NoSchedule' }] },
};

before(async () => {
  up = await startUp('k8ts-timeline-');
  const server = parse(readFileSync(up.kubeconfig, 'utf8')).clusters[0].cluster.server;
  dashboard = `${server}/dashboard/`;
  await kubectl('create', 'serviceaccount', 'dashboard-admin', '-n', 'kube-system');
  await kubectl('create', 'clusterrolebinding', 'dashboard-admin', '--clusterrole=cluster-admin', '--serviceaccount=kube-system:dashboard-admin');
  const token = (await kubectl('create', 'token', 'dashboard-admin', '-n', 'kube-system')).stdout.trim();
  // The StatefulSet exists at 0 replicas before the page loads, so the replay's start has none of its pods.
  await up.kubectl(['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 0, serviceName: 'web', selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'busybox' }] } } },
  }));
  browser = await launchBrowser();
  page = await loggedInPage(browser, dashboard, token);
  // Keyboard: the view's button is reached with Tab like the others; Enter opens it.
  await page.getByRole('button', { name: 'Timeline' }).focus();
  await page.keyboard.press('Enter');
  await page.locator('section[aria-label="timeline"]').waitFor();
});

after(async () => {
  await browser?.close();
  await up?.close();
});

test('a node joins: the page sees it, and the node lifecycle controller\'s RegisteredNode Event arrives', async () => {
  await up.kubectl(['apply', '-f', '-'], JSON.stringify(ghostNode));
  // A Ready condition as a kubelet would post it, once: its heartbeat then stops, so the controller will mark it Unknown.
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await kubectl('patch', 'node', 'ghost', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { conditions: [
    { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now }] } }));
  await filterTo(page, { kind: 'Node', name: 'ghost' });
  await eventually(async () => {
    const l = await lines(page);
    return l.some((e) => e.source === 'watch' && e.reason === 'Joined') && l.some((e) => e.source === 'event' && e.reason === 'RegisteredNode');
  }, 60_000, 'ghost Joined (watch) and RegisteredNode (Event)', timelineEvidence);
  const l = await lines(page);
  assert.ok(l.every((e) => e.kind === 'Node' && e.name === 'ghost'), 'the filter keeps ghost\'s lines only');
  assert.match(l.find((e) => e.reason === 'RegisteredNode')!.text, /Node ghost event: Registered Node ghost in Controller/);
});

test('a StatefulSet scaled 0→3: its pods created, and ready, in ordinal order', async () => {
  await kubectl('scale', 'statefulset', 'web', '--replicas=3');
  await filterTo(page, { namespace: 'default', name: 'web' });
  const watched = async () => (await lines(page)).filter((e) => e.source === 'watch' && e.kind === 'Pod').map((e) => `${e.reason} ${e.name}`);
  await eventually(async () => (await watched()).includes('Ready web-2'), 120_000, 'web-2 Ready in the timeline');
  const order = (await watched()).filter((s) => /^(Created|Ready) /.test(s));
  // OrderedReady: each pod is created only once the one before it is Ready.
  assert.deepEqual(order, ['Created web-0', 'Ready web-0', 'Created web-1', 'Ready web-1', 'Created web-2', 'Ready web-2']);
  // The StatefulSet controller's own Events say the same, in the same order.
  await eventually(async () => (await lines(page)).filter((e) => e.reason === 'SuccessfulCreate').length === 3, 30_000, 'three SuccessfulCreate Events', timelineEvidence);
  const created = (await lines(page)).filter((e) => e.source === 'event' && e.reason === 'SuccessfulCreate').map((e) => /create Pod (web-\d)/.exec(e.text)?.[1]);
  assert.deepEqual(created, ['web-0', 'web-1', 'web-2']);
  await page.screenshot({ path: join(shotsDir, 'timeline.png'), fullPage: true });
});

test('a NoExecute taint: the taint, the taint manager\'s eviction Events, the pods deleted; tolerationSeconds delays one', async () => {
  await kubectl('run', 'plain', '--image=busybox', '--overrides={"spec":{"nodeName":"worker2"}}');
  await kubectl('run', 'patient', '--image=busybox', `--overrides=${JSON.stringify({ spec: { nodeName: 'worker2',
    tolerations: [{ key: 'evict', operator: 'Equal', value: 'now', effect: 'NoExecute', tolerationSeconds: 3 }] } })}`);
  await eventually(async () => (await kubectl('get', 'pods', 'plain', 'patient', '-o', 'jsonpath={.items[*].status.phase}')).stdout === 'Running Running', 30_000, 'both pods running');
  await kubectl('taint', 'nodes', 'worker2', 'evict=now:NoExecute');
  await filterTo(page, {});
  const of = (l: Line[], kind: string, name: string, reason: string) => l.findIndex((e) => e.kind === kind && e.name === name && e.reason === reason);
  await eventually(async () => {
    const l = await lines(page);
    // Events are written by the recorder after the fact: the Deleted line (a watch) may come first.
    return ['plain', 'patient'].every((pod) => of(l, 'Pod', pod, 'Deleted') >= 0 && of(l, 'Pod', pod, 'TaintManagerEviction') >= 0);
  }, 60_000, 'both pods deleted and their TaintManagerEviction Events in the timeline', timelineEvidence);
  const l = await lines(page);
  const tainted = l.findIndex((e) => e.kind === 'Node' && e.name === 'worker2' && e.reason === 'Tainted' && e.text.includes('evict=now:NoExecute'));
  assert.ok(tainted >= 0, 'worker2 Tainted evict=now:NoExecute');
  for (const pod of ['plain', 'patient']) {
    const eviction = l.findIndex((e) => e.source === 'event' && e.kind === 'Pod' && e.name === pod && e.reason === 'TaintManagerEviction');
    assert.ok(eviction > tainted, `${pod}: the TaintManagerEviction Event after the taint`);
    assert.match(l[eviction].text, new RegExp(`Marking for deletion Pod default/${pod}`));
    assert.ok(of(l, 'Pod', pod, 'Deleted') > tainted, `${pod} deleted after the taint`);
  }
  // The pod without a toleration is marked at once; the one tolerating it for 3 s after (the taint manager's Events, in the order written).
  assert.ok(of(l, 'Pod', 'plain', 'TaintManagerEviction') < of(l, 'Pod', 'patient', 'TaintManagerEviction'), 'plain marked for deletion before patient');
  await kubectl('taint', 'nodes', 'worker2', 'evict=now:NoExecute-');
  await eventually(async () => of(await lines(page), 'Node', 'worker2', 'Untainted') >= 0, 20_000, 'worker2 Untainted');
});

/** Moves the replay slider as a user's input would (the input event the page listens to). */
const seek = (p: Page, value: number) => p.locator('input[aria-label="replay position"]').evaluate((el: HTMLInputElement, v) => {
  el.value = String(v);
  el.dispatchEvent(new Event('input', { bubbles: true }));
}, value);
const replayedPods = (p: Page) => p.locator('.replay-map [data-pod]').evaluateAll((els) => els.map((e) => e.getAttribute('data-pod')!));

test('replay: the map at page load has none of the StatefulSet\'s pods; stepping forward shows web-0, web-1, web-2 in order', async () => {
  const slider = page.locator('input[aria-label="replay position"]');
  // Keyboard: Home goes back to the state the page loaded.
  await slider.focus();
  await page.keyboard.press('Home');
  await eventually(async () => (await page.locator('.replay-at').getAttribute('data-at')) === '0', 10_000, 'the replay at its start');
  const atStart = await replayedPods(page);
  assert.ok(!atStart.some((k) => k.startsWith('default/web-')), `no web pods at page load: ${atStart}`);
  const min = Number(await slider.getAttribute('min'));
  const max = Number(await slider.getAttribute('max'));
  assert.ok(max > min, 'watch events were recorded');
  // The first point each of the StatefulSet's pods appears.
  const firstSeen = new Map<string, number>();
  for (let v = min; v <= max && firstSeen.size < 3; v++) {
    await seek(page, v);
    await eventually(async () => (await page.locator('.replay-at').getAttribute('data-at')) === String(v - min), 10_000, `replay at ${v}`);
    for (const k of await replayedPods(page)) if (/^default\/web-\d$/.test(k) && !firstSeen.has(k)) firstSeen.set(k, v);
  }
  const [a, b, c] = ['default/web-0', 'default/web-1', 'default/web-2'].map((k) => firstSeen.get(k) ?? -1);
  assert.ok(a > min && a < b && b < c, `web-0, -1, -2 appear in order: ${a}, ${b}, ${c}`);
  await seek(page, b - 1);
  await eventually(async () => {
    const pods = (await replayedPods(page)).filter((k) => k.startsWith('default/web-'));
    return pods.length === 1 && pods[0] === 'default/web-0';
  }, 10_000, 'only web-0 just before web-1 was created');
  await page.screenshot({ path: join(shotsDir, 'replay.png'), fullPage: true });
  // Play at 10x from here runs to the end of the recording, where the live pods are.
  await page.locator('select[name=speed]').selectOption('10');
  await page.getByRole('button', { name: 'Play' }).click();
  await eventually(async () => (await page.getByRole('button', { name: 'Play' }).getAttribute('aria-pressed')) === 'false'
    && (await page.locator('.replay-at').getAttribute('data-at')) === (await page.locator('.replay-at').getAttribute('data-of')), 120_000, 'playback to the end');
  const atEnd = await replayedPods(page);
  assert.deepEqual(atEnd.filter((k) => k.startsWith('default/web-')).sort(), ['default/web-0', 'default/web-1', 'default/web-2']);
  assert.ok(atStart.length < atEnd.length, `fewer pods at page load (${atStart.length}) than at the end (${atEnd.length})`);
  await page.getByRole('button', { name: 'Live' }).click();
});

test('a StatefulSet rolling update replaces its pods from the highest ordinal down', async () => {
  await filterTo(page, { namespace: 'default', kind: 'Pod', name: 'web-' });
  const watched = async () => (await lines(page)).filter((e) => e.source === 'watch').map((e) => `${e.reason} ${e.name}`);
  const before = (await watched()).length;
  await kubectl('patch', 'statefulset', 'web', '--type=merge', '-p', JSON.stringify({ spec: { template: { metadata: { annotations: { revision: 'two' } } } } }));
  const since = async () => (await watched()).slice(before).filter((s) => /^(Deleted|Created|Ready) /.test(s));
  await eventually(async () => (await since()).includes('Ready web-0'), 180_000, 'web-0 replaced and Ready');
  const order = await since();
  // RollingUpdate: one pod at a time, from the highest ordinal, each recreated and Ready before the next goes.
  assert.deepEqual(order, ['Deleted web-2', 'Created web-2', 'Ready web-2', 'Deleted web-1', 'Created web-1', 'Ready web-1', 'Deleted web-0', 'Created web-0', 'Ready web-0']);
});

test('the node lifecycle controller: a node whose kubelet is silent goes NotReady (Event and taint), and its removal is recorded', async () => {
  await filterTo(page, { kind: 'Node', name: 'ghost' });
  // --node-monitor-grace-period is 50 s on `k8ts up`: ghost's one heartbeat expires, Ready becomes Unknown.
  await eventually(async () => {
    const l = await lines(page);
    return l.some((e) => e.source === 'event' && e.reason === 'NodeNotReady') && l.some((e) => e.source === 'watch' && e.reason === 'Unknown')
      && l.some((e) => e.reason === 'Tainted' && e.text.includes('node.kubernetes.io/unreachable') && e.text.includes('NoExecute'));
  }, 180_000, 'ghost NodeNotReady (Event), Unknown (watch) and the unreachable NoExecute taint', timelineEvidence);
  assert.match((await lines(page)).find((e) => e.reason === 'NodeNotReady')!.text, /Node ghost status is now: NodeNotReady/);
  await kubectl('delete', 'node', 'ghost');
  await eventually(async () => {
    const l = await lines(page);
    return l.some((e) => e.source === 'watch' && e.reason === 'Removed') && l.some((e) => e.source === 'event' && e.reason === 'RemovingNode');
  }, 60_000, 'ghost Removed (watch) and RemovingNode (Event)', timelineEvidence);
});

test('a namespace-limited token sees its namespace\'s lines only: no nodes, no other namespace', async () => {
  const token = await namespaceViewerToken('team-t');
  const limited = await loggedInPage(browser, dashboard, token);
  try {
    await limited.getByRole('button', { name: 'Timeline' }).click();
    await kubectl('run', 'mine', '-n', 'team-t', '--image=busybox');
    await kubectl('run', 'theirs', '-n', 'default', '--image=busybox');
    await eventually(async () => {
      const l = await lines(limited);
      return l.some((e) => e.name === 'mine' && e.source === 'watch' && e.reason === 'Created') && l.some((e) => e.name === 'mine' && e.source === 'event' && e.reason === 'Scheduled');
    }, 60_000, 'team-t/mine in the limited timeline (watch and Event)');
    // theirs was created and scheduled too: wait for the admin's page to show it, then look again.
    await filterTo(page, { namespace: 'default', name: 'theirs' });
    await eventually(async () => (await lines(page)).some((e) => e.reason === 'Scheduled'), 60_000, 'default/theirs scheduled');
    const l = await lines(limited);
    assert.ok(l.every((e) => e.namespace === 'team-t'), `team-t only: ${JSON.stringify(l.filter((e) => e.namespace !== 'team-t').slice(0, 3))}`);
    assert.equal(await limited.locator('section[aria-label="timeline"] [role=alert]').count(), 0, 'no refusal: it may list its own events');
  } finally {
    await limited.context().close();
  }
});

test('the Timeline opened before the pod summary answers (a loaded server): its Events watch starts in the token\'s namespace and outlives the map\'s start', async () => {
  const token = await namespaceViewerToken('team-s');
  // The summary's stream is held until the Timeline's Events list has gone out, the order a loaded server gave
  // in CI: the map's start (its data source decided) must not stop that watch, and the page must know its
  // namespace before it asks for Events.
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  const isSummary = (u: URL) => u.pathname === '/dashboard/api/summary';
  const slow = await loggedInPage(browser, dashboard, token, { beforeLoad: (p) => p.route(isSummary, async (route) => { await held; await route.continue(); }) });
  try {
    const eventsListed = slow.waitForRequest((r) => { const u = new URL(r.url()); return u.pathname.endsWith('/events') && !u.searchParams.has('watch'); });
    await slow.getByRole('button', { name: 'Timeline' }).click();
    const listed = new URL((await eventsListed).url()).pathname;
    assert.equal(listed, '/api/v1/namespaces/team-s/events', 'the Events of the token\'s namespace');
    const summarised = slow.waitForResponse((r) => isSummary(new URL(r.url())));
    release();
    await summarised;
    await kubectl('run', 'late', '-n', 'team-s', '--image=busybox');
    await eventually(async () => (await lines(slow)).some((e) => e.name === 'late' && e.source === 'event' && e.reason === 'Scheduled'),
      60_000, 'team-s/late Scheduled (Event) on the page opened before its summary', () => evidenceOf(slow));
    assert.equal(await slow.locator('section[aria-label="timeline"] [role=alert]').count(), 0, 'no refusal: it may list its own events');
  } finally {
    release();
    await slow.context().close();
  }
});
