/**
 * A client for a CRI runtime (containerd, CRI-O) over its unix socket:
 * runtime.v1 RuntimeService and ImageService, loaded at run time from
 * api.proto with @grpc/proto-loader (keepCase off: fields are camelCase,
 * int64 as Number, enums as their names).
 *
 * Every call carries a deadline (upstream's kubelet uses 2 min for most
 * runtime calls and longer for pulls); a failed call rejects with the gRPC
 * error, whose `code` and `details` callers may inspect (NOT_FOUND = 5).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../../util/package-root.js';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type * as cri from './types.js';

/** gRPC status codes the runtime code tells apart. */
export const grpcDeadlineExceeded = 4;
export const grpcNotFound = 5;
export const grpcUnavailable = 14;

const defaultTimeoutMs = 2 * 60_000;
const pullTimeoutMs = 15 * 60_000;

/**
 * api.proto lives in src/ next to this file's source. The compiled file is
 * dist/src/kubelet/runtime/cri/client.js or part of the bundle
 * (dist/bundle), so the source is found from the package root; a copy beside the compiled file (a packaged build) wins.
 */
export function protoPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, 'api.proto');
  if (existsSync(beside)) return beside;
  return join(packageRoot(), 'src', 'kubelet', 'runtime', 'cri', 'api.proto');
}

let loaded: grpc.GrpcObject | undefined;
function services(): { RuntimeService: grpc.ServiceClientConstructor; ImageService: grpc.ServiceClientConstructor } {
  if (!loaded) {
    const def = protoLoader.loadSync(protoPath(), { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true });
    loaded = grpc.loadPackageDefinition(def);
  }
  const v1 = (loaded.runtime as grpc.GrpcObject).v1 as grpc.GrpcObject;
  return { RuntimeService: v1.RuntimeService as grpc.ServiceClientConstructor, ImageService: v1.ImageService as grpc.ServiceClientConstructor };
}

/** `unix:///run/containerd/containerd.sock` or a bare path → the gRPC target. */
export function criTarget(endpoint: string): string {
  if (endpoint.startsWith('unix://')) return `unix://${endpoint.slice('unix://'.length)}`;
  if (endpoint.startsWith('/')) return `unix://${endpoint}`;
  throw new Error(`unsupported container runtime endpoint "${endpoint}": only unix:// sockets are supported`);
}

export class CRIClient {
  private readonly runtime: grpc.Client;
  private readonly images: grpc.Client;

  constructor(readonly endpoint: string) {
    const { RuntimeService, ImageService } = services();
    const target = criTarget(endpoint);
    // One channel for both services, as the kubelet does when both endpoints are the same socket.
    this.runtime = new RuntimeService(target, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
    this.images = new ImageService(target, grpc.credentials.createInsecure(), { channelOverride: this.runtime.getChannel() });
  }

  private call<Req, Res>(client: grpc.Client, method: string, req: Req, timeoutMs = defaultTimeoutMs): Promise<Res> {
    return new Promise((resolve, reject) => {
      const fn = (client as any)[method] as (r: Req, m: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r: Res) => void) => void;
      fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => (err ? reject(err) : resolve(res)));
    });
  }

  version(): Promise<cri.VersionResponse> { return this.call(this.runtime, 'Version', { version: 'v1' }); }

  /** The node's pod CIDRs, comma-separated as the kubelet sends them. */
  async updateRuntimeConfig(podCIDR: string): Promise<void> {
    await this.call(this.runtime, 'UpdateRuntimeConfig', { runtimeConfig: { networkConfig: { podCidr: podCIDR } } });
  }

  /** The runtime's conditions (RuntimeReady, NetworkReady) and, verbose, its configuration as JSON strings. */
  async status(verbose = false): Promise<{ conditions: { type: string; status: boolean; reason: string; message: string }[]; info: Record<string, string> }> {
    const res = await this.call<any, { status?: { conditions?: any[] }; info?: Record<string, string> }>(this.runtime, 'Status', { verbose });
    return { conditions: res.status?.conditions ?? [], info: res.info ?? {} };
  }

  async runPodSandbox(config: cri.PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const res = await this.call<any, { podSandboxId: string }>(this.runtime, 'RunPodSandbox', { config, runtimeHandler }, 4 * 60_000);
    return res.podSandboxId;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> { await this.call(this.runtime, 'StopPodSandbox', { podSandboxId }); }
  async removePodSandbox(podSandboxId: string): Promise<void> { await this.call(this.runtime, 'RemovePodSandbox', { podSandboxId }); }

  async podSandboxStatus(podSandboxId: string): Promise<cri.PodSandboxStatus> {
    const res = await this.call<any, { status: cri.PodSandboxStatus }>(this.runtime, 'PodSandboxStatus', { podSandboxId });
    return res.status;
  }

  async listPodSandbox(filter: cri.PodSandboxFilter = {}): Promise<cri.PodSandbox[]> {
    const res = await this.call<any, { items: cri.PodSandbox[] }>(this.runtime, 'ListPodSandbox', { filter });
    return res.items ?? [];
  }

  async createContainer(podSandboxId: string, config: cri.ContainerConfig, sandboxConfig: cri.PodSandboxConfig): Promise<string> {
    const res = await this.call<any, { containerId: string }>(this.runtime, 'CreateContainer', { podSandboxId, config, sandboxConfig });
    return res.containerId;
  }

  async startContainer(containerId: string): Promise<void> { await this.call(this.runtime, 'StartContainer', { containerId }); }

  /** Stops the container: its stop signal, then SIGKILL after timeoutSeconds. */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    await this.call(this.runtime, 'StopContainer', { containerId, timeout: timeoutSeconds }, defaultTimeoutMs + timeoutSeconds * 1000);
  }

  async removeContainer(containerId: string): Promise<void> { await this.call(this.runtime, 'RemoveContainer', { containerId }); }

  async listContainers(filter: cri.ContainerFilter = {}): Promise<cri.Container[]> {
    const res = await this.call<any, { containers: cri.Container[] }>(this.runtime, 'ListContainers', { filter });
    return res.containers ?? [];
  }

  async containerStatus(containerId: string): Promise<cri.ContainerStatus> {
    const res = await this.call<any, { status: cri.ContainerStatus }>(this.runtime, 'ContainerStatus', { containerId });
    return res.status;
  }

  async execSync(containerId: string, cmd: string[], timeoutSeconds = 0): Promise<{ stdout: Buffer; stderr: Buffer; exitCode: number }> {
    const deadline = timeoutSeconds > 0 ? timeoutSeconds * 1000 + 10_000 : defaultTimeoutMs;
    return this.call(this.runtime, 'ExecSync', { containerId, cmd, timeout: timeoutSeconds }, deadline);
  }

  /** A URL of the runtime's streaming server that runs cmd in the container once connected to. */
  async exec(containerId: string, cmd: string[], streams: { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }): Promise<string> {
    const res = await this.call<any, { url: string }>(this.runtime, 'Exec', { containerId, cmd, ...streams });
    return res.url;
  }

  /** A URL of the runtime's streaming server that attaches to the container's main process. */
  async attach(containerId: string, streams: { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }): Promise<string> {
    const res = await this.call<any, { url: string }>(this.runtime, 'Attach', { containerId, ...streams });
    return res.url;
  }

  /** A URL of the runtime's streaming server that forwards connections into the sandbox's network namespace. */
  async portForward(podSandboxId: string, ports: number[]): Promise<string> {
    const res = await this.call<any, { url: string }>(this.runtime, 'PortForward', { podSandboxId, port: ports });
    return res.url;
  }

  /** Resource usage of the containers the filter selects (running ones; the runtime reads their cgroups). */
  async listContainerStats(filter: cri.ContainerStatsFilter = {}): Promise<cri.ContainerStats[]> {
    const res = await this.call<any, { stats: cri.ContainerStats[] }>(this.runtime, 'ListContainerStats', { filter }, 30_000);
    return res.stats ?? [];
  }

  async listImages(image?: string): Promise<cri.Image[]> {
    const res = await this.call<any, { images: cri.Image[] }>(this.images, 'ListImages', { filter: image ? { image: { image } } : {} });
    return res.images ?? [];
  }

  /** The image, or undefined when the runtime does not have it. */
  async imageStatus(image: string): Promise<cri.Image | undefined> {
    const res = await this.call<any, { image: cri.Image | null }>(this.images, 'ImageStatus', { image: { image } });
    return res.image ?? undefined;
  }

  /** Pulls the image; resolves with its reference (the image ID, sha256:...). */
  async pullImage(image: string, sandboxConfig?: cri.PodSandboxConfig): Promise<string> {
    const res = await this.call<any, { imageRef: string }>(this.images, 'PullImage', { image: { image }, sandboxConfig }, pullTimeoutMs);
    return res.imageRef;
  }

  close(): void {
    this.images.close();
    this.runtime.close();
  }
}
