/**
 * The shape every CSR controller shares (upstream's CertificateController):
 * CSR adds and updates queue the name; a worker hands the cached object to
 * `handle`. An error is retried with back-off; an IgnorableError is retried
 * too but only logged at debug level (a recognized request whose requester
 * is not allowed yet).
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { WorkQueue, runWorkers, type Informer } from '../../client/index.js';
import type { ControllerContext } from '../types.js';
import type { Logger } from '../../util/log.js';

export class IgnorableError extends Error {}

export class CSRQueue {
  readonly informer: Informer;
  private readonly queue = new WorkQueue();

  constructor(private readonly ctx: ControllerContext, private readonly logger: Logger,
    private readonly handle: (csr: CertificateSigningRequest) => Promise<void>) {
    this.informer = ctx.informers.informer('certificatesigningrequests');
    this.informer.addEventHandler({
      add: (csr) => this.queue.add(csr.metadata.name),
      update: (_old, csr) => this.queue.add(csr.metadata.name),
    });
  }

  run(): void {
    void runWorkers(this.queue, this.ctx.config.workers, (name) => this.sync(name), (name, err) => {
      if (err instanceof IgnorableError) this.logger.debug('sync ignorable', { csr: name, err: err.message });
      else this.logger.warn('error syncing CSR', { csr: name, err: err instanceof Error ? err.message : String(err) });
    });
  }

  stop(): void { this.queue.shutDown(); }

  private async sync(name: string): Promise<void> {
    const csr: CertificateSigningRequest | undefined = this.informer.get(name);
    // The cache's copy is shared: handlers get their own.
    if (csr) await this.handle(structuredClone(csr));
  }
}
