/**
 * What API Priority and Fairness adds to a request in the server's own code
 * (src/apiserver/flowcontrol): the FlowSchema match (classify.ts), the flow's
 * key, and a seat taken and given back with nobody waiting (levels.ts over
 * fair-queue.ts), in a loop, for the writes that dominate a scale run: a
 * binding by the scheduler, a pod create by the controller manager, a node's
 * Lease renewal, and a user's create.
 *
 *   node dist/bench/apf-classify.js [--iterations 2000000]
 */
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../src/api/flowcontrol/bootstrap.js';
import { Classifier, flowOf } from '../src/apiserver/flowcontrol/classify.js';
import { PriorityLevels } from '../src/apiserver/flowcontrol/levels.js';
import type { Release } from '../src/apiserver/flowcontrol/fair-queue.js';
import type { UserInfo } from '../src/apiserver/auth/types.js';
import type { RequestInfo } from '../src/apiserver/request-info.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs('Times what API Priority and Fairness adds to a request (classification, flow key, a seat taken and given back), ns a request.', {
  options: { iterations: { type: 'string', default: '2000000' } },
});
const iterations = Number(values.iterations);

const auth = 'system:authenticated';
const res = (user: UserInfo, verb: string, group: string, resource: string, namespace?: string, subresource?: string) =>
  ({ user, info: { isResourceRequest: true, path: '/', verb, group, version: 'v1', resource, namespace, subresource, parts: [] } as RequestInfo });
const calls: Record<string, { user: UserInfo; info: RequestInfo }> = {
  'POST pods/binding (kube-scheduler)': res({ name: 'system:kube-scheduler', groups: [auth] }, 'create', '', 'pods', 'default', 'binding'),
  'POST pods (kube-controller-manager)': res({ name: 'system:kube-controller-manager', groups: [auth] }, 'create', '', 'pods', 'default'),
  'PUT leases (system:node:n1)': res({ name: 'system:node:n1', groups: ['system:nodes', auth] }, 'update', 'coordination.k8s.io', 'leases', 'kube-node-lease'),
  'POST configmaps (a user)': res({ name: 'alice', groups: [auth] }, 'create', '', 'configmaps', 'default'),
};

const classifier = new Classifier([...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]);
const levels = new PriorityLevels([...mandatoryPriorityLevels(), ...suggestedPriorityLevels()], 32);
const never = () => {};

console.log(`${iterations.toLocaleString('en-US')} iterations, Node ${process.version}`);
console.log('| call | schema / level | classify + flow key, ns | + seat taken and given back, ns |');
console.log('| --- | --- | --- | --- |');
for (const [name, { user, info }] of Object.entries(calls)) {
  const schema = classifier.classify(user, info)!;
  const queue = levels.byName.get(schema.priorityLevel)!.queue!;
  let sink = 0;
  const time = (seat: boolean) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) {
      const s = classifier.classify(user, info)!;
      const flow = flowOf(s, user, info);
      sink += flow.length;
      if (seat) (queue.acquire(flow, never) as Release)();
    }
    return Number(process.hrtime.bigint() - t0) / iterations;
  };
  time(true); // warm
  const classifyNs = time(false);
  const seatNs = time(true);
  console.log(`| ${name} | ${schema.name} / ${schema.priorityLevel} | ${classifyNs.toFixed(0)} | ${seatNs.toFixed(0)} |${sink < 0 ? ' ' : ''}`);
}
