/**
 * The token cleaner (upstream's pkg/controller/bootstrap/tokencleaner.go):
 * deletes bootstrap token Secrets in kube-system once their expiration has
 * passed (an unparseable one counts as passed), and looks at a token again
 * when it is due. The delete carries the Secret's UID as a precondition, so a
 * token re-created under the same name meanwhile is left alone.
 */
import type { Secret } from 'kubernetes-types/core/v1.js';
import type { Informer } from '../../client/index.js';
import { WorkQueue, runWorkers, metaKey, isNotFound, isConflict } from '../../client/index.js';
import { secretTypeBootstrapToken, tokenExpiration, tokenSecretNamespace } from '../../api/bootstraptoken/index.js';
import type { Controller, ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';

export const tokenCleanerName = 'tokencleaner';

export const isTokenSecret = (s: Secret): boolean => s.type === secretTypeBootstrapToken && s.metadata?.namespace === tokenSecretNamespace;

export class TokenCleaner implements Controller {
  readonly name = tokenCleanerName;
  private readonly queue = new WorkQueue();
  private readonly secrets: Informer;
  private readonly logger: Logger;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(tokenCleanerName);
    this.secrets = ctx.informers.informer('secrets');
    const enqueue = (s: Secret) => { if (isTokenSecret(s)) this.queue.add(metaKey(s)); };
    this.secrets.addEventHandler({ add: enqueue, update: (_old, s) => enqueue(s) });
  }

  run(): void {
    this.logger.info('Starting controller', { controller: tokenCleanerName });
    void runWorkers(this.queue, 1, (key) => this.sync(key), (key, err) => this.logger.warn('sync failed', { secret: key, err }));
  }

  stop(): void { this.queue.shutDown(); }

  async sync(key: string): Promise<void | { requeueAfterMs?: number }> {
    const secret: Secret | undefined = this.secrets.get(key);
    if (!secret || !isTokenSecret(secret)) return;
    const { expired, remainingMs } = tokenExpiration(secret, this.ctx.clock.now());
    if (!expired) return remainingMs === undefined ? undefined : { requeueAfterMs: remainingMs };
    const { namespace, name, uid } = secret.metadata!;
    try {
      await this.ctx.clients.resource('secrets').delete(namespace, name!, uid ? { preconditions: { uid } } : {});
      this.logger.info('Deleting expired secret', { secret: key });
    } catch (e) {
      // Gone already, or the UID precondition failed (a new token took the name): nothing to do.
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}
