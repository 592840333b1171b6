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
import { startControllerManager, type RunningControllers } from './controller-manager.js';
import type { ControlLoopsWorkerData } from './control-loops-thread.js';

/** Starts the loops `data.controllers` names (`all`, or a list with or without `scheduler`); stop() ends them all. */
export function startControlLoops(data: ControlLoopsWorkerData, logger: Logger): RunningControllers {
  const names = data.controllers === 'all' ? undefined : data.controllers.split(',').map((s) => s.trim()).filter(Boolean);
  const controllerNames = names?.filter((n) => n !== 'scheduler');
  const running: RunningControllers[] = [];
  if (!controllerNames || controllerNames.length > 0) {
    running.push(startControllerManager({
      client: data.clients.controllerManager, logger: logger.with('controller-manager'), config: data.config,
      controllers: controllerNames, scheduler: false,
    }));
  }
  if (!names || names.includes('scheduler')) {
    running.push(startControllerManager({
      client: data.clients.scheduler, logger: logger.with('scheduler'), config: data.config,
      controllers: [], scheduler: true, leaseName: 'kube-scheduler', userAgent: 'k8ts-scheduler',
    }));
  }
  return { stop: async () => { await Promise.all(running.map((r) => r.stop())); } };
}
