/**
 * kubectl's everyday commands, as the kubectl Quick Reference
 * (kubernetes.io/docs/reference/kubectl/quick-reference/) and `kubectl <cmd> --help`
 * of kubectl 1.32 write them, against `npm start`'s cluster (k8ts up: SQLite,
 * simulated nodes) with the real kubectl, asserting upstream's outcome.
 *
 * Broken when walked (fixed, tested here):
 * - `kubectl create job --from=cronjob/x`: the CronJob controller adopted the
 *   manual Job (ACTIVE 1, "SawCompletedJob" at its end); upstream warns
 *   "UnexpectedJob" and lists it nowhere (so Forbid does not count it), and a
 *   listed Job that is deleted leaves with "MissingJob".
 * - `kubectl top pod NAME` / `top node NAME` without metrics: every case said
 *   `podmetrics.metrics.k8s.io "NAME" not found`; metrics-server names a pod
 *   it does not see (missing, or not Running: its informer selects
 *   status.phase=Running) `pods "NAME" not found`, a missing node
 *   `node "NAME" not found`, and a Running pod without usage
 *   `podmetrics.metrics.k8s.io "NAMESPACE/NAME" not found`.
 *
 * Walked and already answering as upstream (many covered by other e2e files):
 * get -o wide/yaml/json/jsonpath/custom-columns/name, --sort-by, --show-labels,
 * -L, --field-selector (and its error for an unknown field), -w
 * --output-watch-events; describe of every listable kind (deployment, rs, pod,
 * job, cronjob, svc, ingress, pdb, quota, hpa, csr, node, ns, sa, roles and
 * bindings ...); explain (nested, --recursive, unknown field); create
 * deployment/cronjob/job (--from)/service (clusterip, None, nodeport,
 * loadbalancer, externalname)/secret (generic, tls, docker-registry)/configmap
 * (--from-file, --from-env-file, --from-literal)/quota (--scopes)/priorityclass
 * (--global-default, --preemption-policy)/pdb/ingress (rules, tls, class,
 * default backend, annotations)/token (--duration, -o yaml)/role/clusterrole
 * (--non-resource-url, --aggregation-rule)/rolebinding/clusterrolebinding/
 * serviceaccount/namespace; expose (deployment, pod, and the errors for a Job
 * and a missing rc); run (--dry-run=client -o yaml, --env, --labels, --port,
 * --overrides, --rm -it, --restart=Never and a failing command); set
 * image/env (--list, removal)/resources/serviceaccount/selector/subject;
 * rollout status/history (--revision)/pause (twice)/resume/undo
 * (--to-revision, a missing one)/restart; scale (--current-replicas, a Job);
 * autoscale and its FailedGetResourceMetric; label/annotate (--overwrite,
 * removal, --all); patch (strategic, merge, json, no change, a bad value,
 * --subresource=scale); replace (--force); apply (create/unchanged/configured,
 * --prune -l, --server-side and its conflict, --force-conflicts,
 * view/edit/set-last-applied, -k); diff; delete (--cascade=orphan/foreground,
 * --grace-period, --force, --now, --all, -l, --ignore-not-found); wait
 * (condition, jsonpath, create, delete, timeouts); logs (--tail, --since, -l,
 * -c, -p, --all-containers --prefix, --timestamps); exec (exit codes, -it
 * without a terminal); cp both ways; port-forward (pod, service); top
 * nodes/pods (--containers, -A --sort-by); events (--for, --types, -A);
 * api-resources (-o wide, --namespaced, --verbs, --api-group); api-versions;
 * auth can-i (--list, --as, non-resource URLs) and whoami; certificate
 * approve/deny; cordon/drain/uncordon/taint; config view/get-contexts/
 * set-context; cluster-info (and dump); version; debug (ephemeral, --copy-to,
 * node); proxy; kustomize.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';

describe('kubectl\'s everyday commands on npm start\'s cluster', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const events = async (name: string) => (await kubectl(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message', '--no-headers'])).stdout;

  before(async () => {
    up = await startUp('k8ts-e2e-kubectl-quickref-');
  });
  after(async () => { await up?.close(); });

  it('create job --from=cronjob/x: the CronJob warns UnexpectedJob and lists the manual Job nowhere, as upstream (no adoption)', async () => {
    // A schedule that never comes during the test: the only Job is the manual one.
    await kubectl(['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 0 1 1 *', '--', 'sleep', '8']);
    assert.equal((await kubectl(['create', 'job', 'nightly-manual', '--from=cronjob/nightly'])).stdout, 'job.batch/nightly-manual created\n');
    const warned = await eventually(async () => (await events('nightly')).split('\n').find((l) => /^Warning +UnexpectedJob +/.test(l)), 60_000, 'the UnexpectedJob event');
    assert.match(warned, /Saw a job that the controller did not create or forgot: nightly-manual$/);
    // The controller synced with the Job running (it warned), and listed it nowhere: ACTIVE stays 0.
    const row = (await kubectl(['get', 'cronjob', 'nightly', '--no-headers'])).stdout.trim().split(/\s{2,}/);
    assert.deepEqual(row.slice(0, 6), ['nightly', '0 0 1 1 *', '<none>', 'False', '0', '<none>']);
    await kubectl(['wait', '--for=condition=complete', 'job/nightly-manual', '--timeout=90s']);
    // Its end counts as the last success (upstream: "a job does not have to be in active list"), with no SawCompletedJob.
    const cj = await eventually(async () => {
      const got = JSON.parse((await kubectl(['get', 'cronjob', 'nightly', '-o', 'json'])).stdout) as CronJob;
      return got.status?.lastSuccessfulTime ? got : undefined;
    }, 60_000, 'lastSuccessfulTime');
    assert.equal(cj.status?.active, undefined);
    assert.equal(cj.status?.lastScheduleTime, undefined);
    assert.doesNotMatch(await events('nightly'), /SawCompletedJob/);
  });

  it('delete job of a CronJob\'s running Job: the CronJob drops it from ACTIVE with MissingJob, as upstream', async () => {
    await kubectl(['create', 'cronjob', 'every', '--image=busybox:1.28', '--schedule=* * * * *', '--', 'sleep', '600']);
    // The first run starts at the next minute.
    const job = await eventually(async () => {
      const cj = JSON.parse((await kubectl(['get', 'cronjob', 'every', '-o', 'json'])).stdout) as CronJob;
      return cj.status?.active?.[0]?.name;
    }, 120_000, 'the CronJob\'s first Job in status.active');
    assert.equal((await kubectl(['delete', 'job', job])).stdout, `job.batch "${job}" deleted\n`);
    const missing = await eventually(async () => (await events('every')).split('\n').find((l) => /^Normal +MissingJob +/.test(l)), 60_000, 'the MissingJob event');
    assert.match(missing, new RegExp(`Active job went missing: ${job}$`));
    await kubectl(['delete', 'cronjob', 'every']);
  });

  it('top pod / top node NAME without metrics: metrics-server\'s NotFound words for a missing node, a missing or finished pod, and a Running pod without usage', async () => {
    const top = async (args: string[]) => {
      const r = await kubectl(['top', ...args], undefined, true);
      assert.equal(r.code, 1, `kubectl top ${args.join(' ')}: ${r.stdout}`);
      return r.stderr;
    };
    const pod = async (name: string) => JSON.parse((await kubectl(['get', 'pod', name, '-o', 'json'])).stdout) as Pod;
    assert.equal(await top(['node', 'nosuch']), 'Error from server (NotFound): node "nosuch" not found\n');
    assert.equal(await top(['pod', 'nosuch']), 'Error from server (NotFound): pods "nosuch" not found\n');
    await kubectl(['run', 'done', '--image=busybox:1.28', '--restart=Never', '--', 'true']);
    await eventually(async () => (await pod('done')).status?.phase === 'Succeeded', 60_000, 'done Succeeded');
    assert.equal(await top(['pod', 'done']), 'Error from server (NotFound): pods "done" not found\n');
    // Running (restartPolicy Always) with no container up: no usage to report.
    await kubectl(['run', 'crash', '--image=busybox:1.28', '--', 'sh', '-c', 'echo boom; exit 1']);
    await eventually(async () => (await pod('crash')).status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff', 60_000, 'crash in CrashLoopBackOff');
    assert.equal((await pod('crash')).status?.phase, 'Running');
    assert.equal(await top(['pod', 'crash']), 'Error from server (NotFound): podmetrics.metrics.k8s.io "default/crash" not found\n');
  });
});
