/**
 * The bootstrap signer (upstream's pkg/controller/bootstrap/bootstrapsigner.go):
 * keeps ConfigMap kube-public/cluster-info signed by every valid signing
 * token in kube-system. Any change to that ConfigMap or to a token Secret
 * queues the one key; the sync recomputes the signatures from the caches and
 * writes only when they differ. Beyond upstream, a sync also comes back when
 * the next signing token expires, so its signature goes on time even while
 * the token cleaner is off.
 */
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, isNotFound, isConflict } from '../../client/index.js';
import { clusterInfoConfigMap, clusterInfoNamespace } from '../../api/bootstraptoken/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';
import { isTokenSecret } from './tokencleaner.js';
import { nextExpiryMs, planSignedClusterInfo, signingTokens } from './plan.js';

export const bootstrapSignerName = 'bootstrapsigner';
const configMapKey = `${clusterInfoNamespace}/${clusterInfoConfigMap}`;

export class BootstrapSigner implements Controller {
  readonly name = bootstrapSignerName;
  private readonly queue = new WorkQueue();
  private readonly secrets: Informer;
  private readonly configMaps: Informer;
  private readonly logger: Logger;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(bootstrapSignerName);
    this.secrets = ctx.informers.informer('secrets');
    this.configMaps = ctx.informers.informer('configmaps');
    const poke = () => this.queue.add(configMapKey);
    const ours = (cm: ConfigMap) => cm.metadata?.namespace === clusterInfoNamespace && cm.metadata?.name === clusterInfoConfigMap;
    this.configMaps.addEventHandler({ add: (cm) => { if (ours(cm)) poke(); }, update: (_o, cm) => { if (ours(cm)) poke(); } });
    const token = (s: Secret) => { if (isTokenSecret(s)) poke(); };
    this.secrets.addEventHandler({ add: token, update: (_o, s) => token(s), delete: token });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: bootstrapSignerName });
    void runWorkers(this.queue, 1, () => this.sync(), (_key, err) => this.logger.warn('signing cluster-info failed', { err }));
  }

  stop(): void { this.queue.shutDown(); }

  async sync(): Promise<void | { requeueAfterMs?: number }> {
    const cm: ConfigMap | undefined = this.configMaps.get(configMapKey);
    if (!cm) return;
    const now = this.ctx.clock.now();
    const secrets = this.secrets.list().filter(isTokenSecret);
    const next = planSignedClusterInfo(cm, signingTokens(secrets, now));
    if (next) {
      try {
        await this.ctx.clients.resource('configmaps').update(next);
      } catch (e) {
        // A conflict brings the newer ConfigMap through the informer, which queues another sync.
        if (!isConflict(e) && !isNotFound(e)) throw e;
      }
    }
    const expiry = nextExpiryMs(secrets, now);
    return expiry === undefined ? undefined : { requeueAfterMs: expiry };
  }
}
