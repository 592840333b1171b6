/**
 * TypeScript shapes of the CRI messages in api.proto as @grpc/proto-loader
 * hands them over (camelCase fields, int64 as number, enums as their names).
 * Timestamps (createdAt, startedAt, finishedAt) are nanoseconds since the epoch.
 */

export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

export interface VersionResponse {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

export interface PodSandboxMetadata { name: string; uid: string; namespace: string; attempt: number }
export interface NamespaceOption { network?: NamespaceMode; pid?: NamespaceMode; ipc?: NamespaceMode; targetId?: string }
export interface PortMapping { protocol?: 'TCP' | 'UDP' | 'SCTP'; containerPort: number; hostPort?: number; hostIp?: string }

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname?: string;
  logDirectory?: string;
  dnsConfig?: { servers?: string[]; searches?: string[]; options?: string[] };
  portMappings?: PortMapping[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  linux?: {
    cgroupParent?: string;
    securityContext?: { namespaceOptions?: NamespaceOption; privileged?: boolean };
    sysctls?: Record<string, string>;
  };
}

export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  createdAt: number;
  network?: { ip: string; additionalIps?: { ip: string }[] } | null;
  linux?: { namespaces?: { options?: NamespaceOption } } | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState };
  labelSelector?: Record<string, string>;
}

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  createdAt: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface Mount { containerPath: string; hostPath: string; readonly?: boolean; propagation?: string }
export interface ContainerMetadata { name: string; attempt: number }
export interface ImageSpec { image: string; annotations?: Record<string, string>; userSpecifiedImage?: string }

export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: ImageSpec;
  command?: string[];
  args?: string[];
  workingDir?: string;
  envs?: { key: string; value: string }[];
  mounts?: Mount[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  logPath?: string;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  linux?: {
    resources?: { cpuPeriod?: number; cpuQuota?: number; cpuShares?: number; memoryLimitInBytes?: number; oomScoreAdj?: number };
    securityContext?: { privileged?: boolean; namespaceOptions?: NamespaceOption; readonlyRootfs?: boolean };
  };
}

export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState };
  podSandboxId?: string;
  labelSelector?: Record<string, string>;
}

export interface Container {
  id: string;
  podSandboxId: string;
  metadata: ContainerMetadata;
  image: ImageSpec;
  imageRef: string;
  state: ContainerState;
  createdAt: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface ContainerStatus {
  id: string;
  metadata: ContainerMetadata;
  state: ContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  image: ImageSpec;
  imageRef: string;
  reason: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  mounts: Mount[];
  logPath: string;
}

export interface Image {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: number;
  pinned: boolean;
}

/** A wrapped uint64: null (unset) tells "not measured" from zero. */
export interface UInt64Value { value: number }

export interface ContainerStatsFilter { id?: string; podSandboxId?: string; labelSelector?: Record<string, string> }

/** Timestamps in nanoseconds since the epoch; a runtime leaves what it does not measure null. */
export interface ContainerStats {
  attributes: { id: string; metadata: ContainerMetadata | null; labels: Record<string, string>; annotations: Record<string, string> } | null;
  cpu: { timestamp: number; usageCoreNanoSeconds: UInt64Value | null; usageNanoCores: UInt64Value | null } | null;
  memory: { timestamp: number; workingSetBytes: UInt64Value | null; usageBytes: UInt64Value | null; rssBytes: UInt64Value | null } | null;
}
