/**
 * csrapproving (upstream pkg/controller/certificates/approver): approves
 * kubelet client certificate requests whose requester a SubjectAccessReview
 * allows (approver-rules.ts), through the approval subresource with reason
 * AutoApproved. Issued, approved and denied requests are left alone; so is
 * anything no recognizer knows. A recognized request whose requester is not
 * allowed is retried with back-off (permissions may be granted later).
 */
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { ResourceClient } from '../../client/index.js';
import { certApprovalCondition } from '../../api/csr.js';
import { parseCertificateRequest } from '../../pki/index.js';
import type { Logger } from '../../util/log.js';
import type { Controller, ControllerContext } from '../types.js';
import { CSRQueue, IgnorableError } from './queue.js';
import { recognizers, subjectAccessReviewFor } from './approver-rules.js';

export const approvingControllerName = 'csrapproving';

const subjectAccessReviews = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', namespaced: false };

export class CSRApprovingController implements Controller {
  readonly name = approvingControllerName;
  private readonly logger: Logger;
  private readonly queue: CSRQueue;
  private readonly reviews: ResourceClient;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(approvingControllerName);
    this.queue = new CSRQueue(ctx, this.logger, (csr) => this.handle(csr));
    this.reviews = new ResourceClient(ctx.clients.rest, subjectAccessReviews);
  }

  run(): void {
    this.logger.info('Starting controller', { controller: approvingControllerName });
    this.queue.run();
  }

  stop(): void { this.queue.stop(); }

  private async handle(csr: CertificateSigningRequest): Promise<void> {
    if (csr.status?.certificate) return;
    const { approved, denied } = certApprovalCondition(csr);
    if (approved || denied) return;
    const req = await parseCertificateRequest(Buffer.from(csr.spec.request, 'base64').toString('latin1'));
    if (!req) throw new Error(`unable to parse csr "${csr.metadata!.name}"`);
    const tried: string[] = [];
    for (const r of recognizers) {
      if (!r.recognize(csr, req)) continue;
      tried.push(r.subresource);
      const review = await this.reviews.create(undefined, subjectAccessReviewFor(csr, r.subresource));
      if (!review?.status?.allowed) continue;
      const condition = { type: 'Approved', status: 'True', reason: 'AutoApproved', message: r.successMessage };
      csr.status = { ...csr.status, conditions: [...(csr.status?.conditions ?? []), condition] };
      await this.ctx.clients.resource('certificatesigningrequests').update(csr, 'approval');
      return;
    }
    if (tried.length) throw new IgnorableError(`recognized csr "${csr.metadata!.name}" as [${tried.join(' ')}] but subject access review was not approved`);
  }
}
