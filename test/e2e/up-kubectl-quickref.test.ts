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
});
