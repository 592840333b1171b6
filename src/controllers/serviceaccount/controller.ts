/**
 * The service-account tokens controller (upstream "serviceaccount-token"):
 * fills in Secrets of type kubernetes.io/service-account-token (plan.ts) and
 * deletes those whose ServiceAccount is gone, also when the ServiceAccount is
 * deleted after them. Its Secret informer watches only that type (a field
 * selector, as upstream's), so the control loops keep no other Secret.
 * Writes go through the API with the Secret's resourceVersion; a conflict is
 * retried from the queue with the fresh object.
 */
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { Informer, WorkQueue, runWorkers, isNotFound, isConflict } from '../../client/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { serviceAccountNameAnnotation, serviceAccountTokenSecretType } from '../../api/legacy-serviceaccount-token.js';
import { planTokenSecret } from './plan.js';

export const controllerName = 'serviceaccount-token';

export class TokensController implements Controller {
  readonly name = controllerName;
  private readonly logger: Logger;
  private readonly secrets: Informer;
  private readonly serviceAccounts: Informer;
  private readonly queue = new WorkQueue();

  constructor(private readonly ctx: ControllerContext, private readonly rootCA: string, private readonly sign: ((sa: ServiceAccount, secret: Secret) => string) | undefined) {
    this.logger = ctx.logger.with(controllerName);
    this.secrets = new Informer(ctx.clients.resource('secrets'), { fieldSelector: `type=${serviceAccountTokenSecretType}`, logger: this.logger });
    this.serviceAccounts = ctx.informers.informer('serviceaccounts');
    const key = (s: Secret) => `${s.metadata!.namespace}/${s.metadata!.name}`;
    this.secrets.addEventHandler({ add: (s: Secret) => this.queue.add(key(s)), update: (_o, s: Secret) => this.queue.add(key(s)) });
    // A deleted ServiceAccount takes its token Secrets with it.
    this.serviceAccounts.addEventHandler({
      delete: (sa: ServiceAccount) => {
        for (const s of this.secrets.list() as Secret[]) {
          if (s.metadata?.namespace === sa.metadata?.namespace && s.metadata?.annotations?.[serviceAccountNameAnnotation] === sa.metadata?.name) this.queue.add(key(s));
        }
      },
    });
  }

  run(): void {
    if (!this.sign) { this.logger.warn('no service account private key; not starting', { controller: controllerName }); return; }
    this.logger.info('Starting controller', { controller: controllerName });
    this.secrets.start();
    void this.secrets.waitForSync().then(() => runWorkers(this.queue, this.ctx.config.workers, (k) => this.syncSecret(k),
      (k, err) => this.logger.warn('error syncing service account token secret', { secret: k, err })));
  }

  stop(): void {
    this.queue.shutDown();
    this.secrets.stop();
  }

  private async syncSecret(key: string): Promise<void> {
    const secret = this.secrets.get(key) as Secret | undefined;
    if (!secret || secret.metadata?.deletionTimestamp) return;
    const [namespace, name] = key.split('/');
    const saName = secret.metadata?.annotations?.[serviceAccountNameAnnotation] ?? '';
    const sa = (this.serviceAccounts.get(`${namespace}/${saName}`) as ServiceAccount | undefined) ?? await this.liveServiceAccount(namespace, saName);
    const action = planTokenSecret(secret, sa, this.rootCA, this.sign!);
    const client = this.ctx.clients.resource('secrets');
    try {
      if (action && 'delete' in action) await client.delete(namespace, name, { preconditions: { uid: secret.metadata?.uid } });
      else if (action) await client.update(action.update);
    } catch (e) {
      if (isNotFound(e) || (isConflict(e) && action && 'delete' in action)) return;
      throw e;
    }
  }

  /** A ServiceAccount created just now may not be in the cache yet: upstream reads it live before deleting its Secret. */
  private async liveServiceAccount(namespace: string, name: string): Promise<ServiceAccount | undefined> {
    if (!name) return undefined;
    try {
      return await this.ctx.clients.resource('serviceaccounts').get(namespace, name);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }
}
