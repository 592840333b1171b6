/**
 * What a simulated container of a well-known image uses (usage-model.ts):
 * its idle CPU, its working set, and the CPU one request to its server
 * costs. The figures are plausible for the images, not measured on them:
 *
 *  - registry.k8s.io/hpa-example (php:5-apache with an index.php that adds
 *    sqrt($x) a million times): Apache's prefork children and PHP, ~11 MiB;
 *    each request ~30 ms of CPU on one core;
 *  - nginx, nginx-slim, httpd, echoserver: a few MiB, well under a
 *    millisecond a request;
 *  - kubernetes-bootcamp (Node 6), hello-app (Go): a Node heap, a Go binary;
 *  - busybox, alpine (a shell, a sleep): under 1 MiB and no CPU;
 *  - anything else: 1m idle, 4 MiB.
 * A container running a stress program (stress.ts: polinux/stress's
 * `stress`, vish/stress) uses what its hogs use instead: busy threads, the
 * vm workers' bytes as they are touched.
 * A container's working set is never reported above its memory limit (the
 * OOM killer acts there: oom-kill.ts).
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { milliValue, integerValue, parseQuantity } from '../../../api/quantity.js';
import { repoAndTag } from './image-contents.js';
import type { ContainerUsageSpec } from './usage-model.js';
import { stressWorkload } from './stress.js';

export interface UsageProfile {
  /** Idle CPU, millicores. */
  idleMilli: number;
  workingSetBytes: number;
  /** CPU one request costs, ms on one core. */
  requestCpuMs: number;
}

const MiB = 1024 * 1024;

/** hpa-example's index.php: tens of ms of CPU a request (its loop of a million sqrt). */
export const hpaExampleRequestCpuMs = 30;

const profiles: Record<string, UsageProfile> = {
  hpaExample: { idleMilli: 1, workingSetBytes: 11 * MiB, requestCpuMs: hpaExampleRequestCpuMs },
  nginx: { idleMilli: 0, workingSetBytes: 3 * MiB, requestCpuMs: 0.2 },
  httpd: { idleMilli: 1, workingSetBytes: 7 * MiB, requestCpuMs: 0.3 },
  echoserver: { idleMilli: 1, workingSetBytes: 5 * MiB, requestCpuMs: 0.3 },
  node: { idleMilli: 1, workingSetBytes: 14 * MiB, requestCpuMs: 0.5 },
  go: { idleMilli: 1, workingSetBytes: 4 * MiB, requestCpuMs: 0.1 },
  shell: { idleMilli: 0, workingSetBytes: 0.4 * MiB, requestCpuMs: 0.1 },
  other: { idleMilli: 1, workingSetBytes: 4 * MiB, requestCpuMs: 0.5 },
};

/** The image's profile, by its repository (any tag). */
export function usageProfile(image: string): UsageProfile {
  const { repo } = repoAndTag(image);
  const name = repo.split('/').pop()!;
  switch (name) {
    case 'hpa-example': return profiles.hpaExample!;
    case 'nginx': case 'nginx-slim': return profiles.nginx!;
    case 'httpd': return profiles.httpd!;
    case 'echoserver': return profiles.echoserver!;
    case 'kubernetes-bootcamp': case 'node': return profiles.node!;
    case 'hello-app': return profiles.go!;
    case 'busybox': case 'alpine': return profiles.shell!;
    default: return profiles.other!;
  }
}

const quantity = (q: unknown, scale: 'milli' | 'unit') => {
  const p = parseQuantity(q);
  return p === undefined ? undefined : Number(scale === 'milli' ? milliValue(p) : integerValue(p));
};

/** The model's view of a container: its limit and its image's idle use (working set capped by the memory limit). */
export function containerUsageSpec(c: Container): ContainerUsageSpec {
  const profile = usageProfile(String(c.image ?? ''));
  const cpuLimit = quantity(c.resources?.limits?.cpu, 'milli');
  const memLimit = quantity(c.resources?.limits?.memory, 'unit');
  const limits = {
    ...(cpuLimit !== undefined && cpuLimit > 0 ? { limitCores: cpuLimit / 1000 } : {}),
    ...(memLimit !== undefined && memLimit > 0 ? { memoryLimitBytes: memLimit } : {}),
  };
  const stress = stressWorkload(c);
  if (stress) {
    return { ...limits, idleCores: stress.sleepyCores, busyThreads: stress.busyThreads, workingSetBytes: stress.workingSetAt(0), workingSetAt: stress.workingSetAt };
  }
  return {
    ...limits,
    idleCores: profile.idleMilli / 1000,
    workingSetBytes: Math.round(memLimit !== undefined && memLimit > 0 ? Math.min(profile.workingSetBytes, memLimit) : profile.workingSetBytes),
  };
}
