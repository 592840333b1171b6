/**
 * csrcleaner (upstream pkg/controller/certificates/cleaner): every polling
 * interval (upstream 1 h) checks each CSR in the cache against
 * cleaner-rules.ts and deletes the ones that are done with.
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { isNotFound, type Informer } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import type { Controller, ControllerContext } from '../types.js';
import { cleanupReason } from './cleaner-rules.js';

export const cleanerControllerName = 'csrcleaner';

export class CSRCleanerController implements Controller {
  readonly name = cleanerControllerName;
  private readonly logger: Logger;
  private readonly csrs: Informer;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(cleanerControllerName);
    this.csrs = ctx.informers.informer('certificatesigningrequests');
  }

  run(): void {
    this.logger.info('Starting controller', { controller: cleanerControllerName });
    void this.poll();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async poll(): Promise<void> {
    await this.cleanOnce().catch((e) => this.logger.warn('csr cleanup failed', { err: (e as Error).message }));
    if (!this.stopped) this.timer = setTimeout(() => void this.poll(), this.ctx.config.csrCleanerPollingIntervalMs);
  }

  /** One pass: delete every CSR a rule says is done with. */
  async cleanOnce(): Promise<void> {
    const now = this.ctx.clock.now().getTime();
    for (const csr of this.csrs.list() as CertificateSigningRequest[]) {
      const reason = cleanupReason(csr, now);
      if (!reason) continue;
      this.logger.info('Cleaning CSR', { csr: csr.metadata!.name, reason });
      try {
        await this.ctx.clients.resource('certificatesigningrequests').delete(undefined, csr.metadata!.name!);
      } catch (e) {
        if (!isNotFound(e)) throw new Error(`unable to delete CSR "${csr.metadata!.name}": ${(e as Error).message}`);
      }
    }
  }
}
