/**
 * The control loops of `k8ts up` / `k8ts server`: the controller manager and
 * the scheduler, each a client of the API server over HTTPS under its own
 * identity and leader Lease, as kubeadm runs them. They import nothing of the
 * server. `k8ts server` runs them in a worker thread of their own
 * (control-loops-thread.ts, docs/threads.md point 4); `k8ts up` on its serving
 * thread (control-loops-inline.ts), where a second isolate costs more memory
 * than the quick start's three simulated nodes give it work.
 */
import type { Logger } from '../util/log.js';
import { Clientset } from '../client/index.js';
import { controlLoopInformers, startControllerManager, type RunningControllers } from './controller-manager.js';
import type { ControlLoopsWorkerData } from './control-loops-thread.js';
import { componentUserAgent } from '../util/user-agent.js';

/**
 * Starts the loops `data.controllers` names (`all`, or a list with or without `scheduler`); stop() ends them all.
 * The two components read one set of informers (client/shared-informers.ts), as kube-controller-manager's
 * controllers share theirs: every pod and node is listed, watched and decoded once, not once per component.
 * The informers watch under the controller manager's identity (its role lists and watches everything),
 * or the scheduler's when it runs alone; each component writes under its own. They watch through
 * that component's own client, as before they were shared: its connections carry the watches
 * beside its writes, so the controller manager's bursts of creates stay within the sockets they
 * had (a client with all 64 to itself sends more creates at once than the server's fair queue lets
 * one flow wait with, 50, and gets 429s, each retried a second later).
 */
export function startControlLoops(data: ControlLoopsWorkerData, logger: Logger): RunningControllers {
  const names = data.controllers === 'all' ? undefined : data.controllers.split(',').map((s) => s.trim()).filter(Boolean);
  const controllerNames = names?.filter((n) => n !== 'scheduler');
  const withControllers = !controllerNames || controllerNames.length > 0;
  const withScheduler = !names || names.includes('scheduler');
  const controllerClients = withControllers ? new Clientset(data.clients.controllerManager, { qps: 0, userAgent: componentUserAgent('kube-controller-manager') }) : undefined;
  const schedulerClients = withScheduler ? new Clientset(data.clients.scheduler, { qps: 0, userAgent: componentUserAgent('kube-scheduler') }) : undefined;
  const informers = controlLoopInformers((controllerClients ?? schedulerClients)!, logger);
  const running: RunningControllers[] = [];
  if (withControllers) {
    running.push(startControllerManager({
      client: data.clients.controllerManager, logger: logger.with('controller-manager'), config: data.config,
      controllers: controllerNames, scheduler: false, informers, clients: controllerClients,
    }));
  }
  if (withScheduler) {
    running.push(startControllerManager({
      client: data.clients.scheduler, logger: logger.with('scheduler'), config: data.config,
      controllers: [], scheduler: true, leaseName: 'kube-scheduler', userAgent: componentUserAgent('kube-scheduler'), informers, clients: schedulerClients,
    }));
  }
  return {
    stop: async () => {
      await Promise.all(running.map((r) => r.stop()));
      controllerClients?.close();
      schedulerClients?.close();
    },
  };
}
