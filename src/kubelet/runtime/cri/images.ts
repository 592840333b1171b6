/**
 * Images for a container about to start (upstream pkg/kubelet/images
 * image_manager.go EnsureImageExists), v1.32:
 *
 *  1. Present and the policy is not Always → use it.
 *  2. imagePullPolicy Never and absent → ErrImageNeverPull,
 *     `Container image "X" is not present with pull policy of Never`.
 *  3. A pull of this image for this pod failed less than its back-off ago
 *     (10 s doubling to 5 min) → ImagePullBackOff, `Back-off pulling image "X"`.
 *  4. Otherwise pull; a failure → ErrImagePull with the runtime's error, and
 *     the back-off grows.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { status as Status } from '@grpc/grpc-js';
import { defaultPullPolicy } from '../../../api/defaults/image.js';
import { Backoff } from './backoff.js';
import type { CRIClient } from './client.js';
import type * as cri from './types.js';
import { successfullyPulled } from '../pull-events.js';

export type ImageResult = { imageRef: string; pulled?: { ms: number } } | { reason: string; message: string };

/** A gRPC error as Go's status error prints it: `rpc error: code = Unknown desc = ...`. */
export function goGRPCError(e: unknown): string {
  const err = e as { code?: number; details?: string; message?: string };
  if (typeof err?.code !== 'number') return String(err?.message ?? e);
  const name = (Status[err.code] ?? 'UNKNOWN').toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u, ch: string) => ch.toUpperCase());
  return `rpc error: code = ${name} desc = ${goDialError(err.details) ?? err.details ?? ''}`;
}

/** Go's syscall texts for the errors a dial to a unix socket meets. */
const goErrno: Record<string, string> = {
  ENOENT: 'no such file or directory', ECONNREFUSED: 'connection refused', EACCES: 'permission denied', ENOTSOCK: 'socket operation on non-socket',
};

/**
 * grpc-js's "No connection established. Last error: Error: connect ENOENT /run/x.sock"
 * as grpc-go says it: `connection error: desc = "transport: Error while dialing: dial unix
 * /run/x.sock: connect: no such file or directory"` (what kubeadm and the kubelet print).
 */
function goDialError(details: string | undefined): string | undefined {
  const m = /connect (E[A-Z]+) (\/\S+?)\.?(?:\s|$)/.exec(details ?? '');
  if (!m || !goErrno[m[1]!]) return undefined;
  return `connection error: desc = "transport: Error while dialing: dial unix ${m[2]}: connect: ${goErrno[m[1]!]}"`;
}

/** An event about the container whose image is ensured: the kubelet's recorder, narrowed to the container. */
export type ImageEventSink = (type: 'Normal' | 'Warning', reason: string, message: string) => void;

/**
 * The kubelet's image manager (pkg/kubelet/images/image_manager.go,
 * EnsureImageExists), with its events in its order and words:
 *  1. present and the policy is not Always: Pulled "Container image \"X\" already present on machine";
 *  2. absent with policy Never: Warning ErrImageNeverPull;
 *  3. in back-off since the last failure: BackOff "Back-off pulling image \"X\"";
 *  4. otherwise Pulling "Pulling image \"X\"", then Pulled "Successfully pulled image \"X\" in D
 *     (D including waiting). Image size: N bytes." or Warning Failed "Failed to pull image \"X\": ERR"
 *     (and the back-off grows).
 * The caller adds Failed "Error: REASON" for the three failures, as kuberuntime's startContainer does.
 */
export class ImageManager {
  private readonly backoff: Backoff;

  constructor(private readonly client: CRIClient, private readonly now: () => number) {
    this.backoff = new Backoff(now);
  }

  async ensureImageExists(podUID: string, c: Container, sandboxConfig: cri.PodSandboxConfig, event: ImageEventSink = () => {}): Promise<ImageResult> {
    const image = c.image ?? '';
    const policy = c.imagePullPolicy ?? defaultPullPolicy(image);
    const present = await this.client.imageStatus(image);
    if (present && policy !== 'Always') {
      event('Normal', 'Pulled', `Container image "${image}" already present on machine`);
      return { imageRef: present.id };
    }
    if (policy === 'Never') {
      const message = `Container image "${image}" is not present with pull policy of Never`;
      event('Warning', 'ErrImageNeverPull', message);
      return { reason: 'ErrImageNeverPull', message };
    }
    const key = `${podUID}/${image}`;
    if (this.backoff.isInBackOffSinceUpdate(key)) {
      const message = `Back-off pulling image "${image}"`;
      event('Normal', 'BackOff', message);
      return { reason: 'ImagePullBackOff', message };
    }
    event('Normal', 'Pulling', `Pulling image "${image}"`);
    const started = this.now();
    let imageRef: string;
    try {
      imageRef = await this.client.pullImage(image, sandboxConfig);
    } catch (e) {
      const message = goGRPCError(e);
      event('Warning', 'Failed', `Failed to pull image "${image}": ${message}`);
      this.backoff.next(key);
      return { reason: 'ErrImagePull', message };
    }
    const ms = this.now() - started;
    const size = (await this.client.imageStatus(image).catch(() => undefined))?.size ?? 0;
    event('Normal', 'Pulled', successfullyPulled(image, ms, size));
    return { imageRef, pulled: { ms } };
  }

  forget(podUID: string): void { this.backoff.forget(`${podUID}/`); }
}
