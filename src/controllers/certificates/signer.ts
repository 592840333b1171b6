/**
 * csrsigning (upstream pkg/controller/certificates/signer): signs approved
 * requests for kube-apiserver-client, kube-apiserver-client-kubelet and
 * kubelet-serving with the cluster CA (--cluster-signing-cert-file and
 * --cluster-signing-key-file) and writes status.certificate through /status.
 * Pending, denied, failed and issued requests, and other signers' requests,
 * are left alone. The certificate lives --cluster-signing-duration, or
 * spec.expirationSeconds when shorter (10 minutes at least).
 */
import { readFileSync } from 'node:fs';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { isConflict } from '../../client/index.js';
import { hasTrueCondition, isCertificateRequestApproved } from '../../api/csr.js';
import { parseCertificateRequest, signCertificateRequest, signingDurationMs, signingProfile, type CertificateAuthority } from '../../pki/index.js';
import { rfc3339 } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import type { Controller, ControllerContext } from '../types.js';
import { CSRQueue } from './queue.js';
import { checkRequestForSigner, signedSignerNames } from './signer-rules.js';

export const signingControllerName = 'csrsigning';

export class CSRSigningController implements Controller {
  readonly name = signingControllerName;
  private readonly logger: Logger;
  private readonly queue: CSRQueue;
  private ca?: CertificateAuthority;

  constructor(private readonly ctx: ControllerContext) {
    this.logger = ctx.logger.with(signingControllerName);
    this.queue = new CSRQueue(ctx, this.logger, (csr) => this.handle(csr));
  }

  run(): void {
    const { clusterSigningCertFile: certFile, clusterSigningKeyFile: keyFile } = this.ctx.config;
    try {
      if (!certFile || !keyFile) throw new Error('no --cluster-signing-cert-file/--cluster-signing-key-file');
      this.ca = { certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
    } catch (e) {
      // Upstream skips the controller when it has no CA key to sign with.
      this.logger.warn('Skipping CSR signer controller because no CA key was provided', { err: (e as Error).message });
      return;
    }
    this.logger.info('Starting controller', { controller: signingControllerName });
    this.queue.run();
  }

  stop(): void { this.queue.stop(); }

  private async handle(csr: CertificateSigningRequest): Promise<void> {
    if (!isCertificateRequestApproved(csr) || hasTrueCondition(csr, 'Failed') || csr.status?.certificate) return;
    if (!signedSignerNames.includes(csr.spec.signerName)) return;
    const csrPem = Buffer.from(csr.spec.request, 'base64').toString('latin1');
    const req = await parseCertificateRequest(csrPem);
    if (!req) throw new Error(`unable to parse csr "${csr.metadata!.name}"`);
    const usages = csr.spec.usages ?? [];
    const check = checkRequestForSigner(csr.spec.signerName, req, usages);
    if (!check.recognized) return;
    if (check.error) return this.fail(csr, check.error);
    const now = this.ctx.clock.now().getTime();
    const profile = signingProfile(usages, signingDurationMs(this.ctx.config.clusterSigningDurationMs, csr.spec.expirationSeconds), now);
    if ('error' in profile) throw new Error(`error auto signing csr: ${profile.error}`);
    const signed = await signCertificateRequest({ ca: this.ca!, csrPem, usages: [], days: 0, profile });
    if (!signed.ok) throw new Error(`error auto signing csr: ${signed.message}`);
    csr.status = { ...csr.status, certificate: Buffer.from(signed.certPem).toString('base64') };
    await this.ctx.clients.resource('certificatesigningrequests').updateStatus(csr);
  }

  /** A request this signer will never sign: say why in a Failed condition. */
  private async fail(csr: CertificateSigningRequest, message: string): Promise<void> {
    const condition = { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message, lastUpdateTime: rfc3339(this.ctx.clock.now()) };
    csr.status = { ...csr.status, conditions: [...(csr.status?.conditions ?? []), condition] };
    try {
      await this.ctx.clients.resource('certificatesigningrequests').updateStatus(csr);
    } catch (e) {
      if (!isConflict(e)) throw new Error(`error adding failure condition for csr: ${(e as Error).message}`);
    }
  }
}
