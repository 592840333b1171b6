/**
 * Which containers the kernel OOM-killed, from its log (/dev/kmsg), as the
 * kubelet's OOM watcher reads it upstream (cadvisor's oomparser).
 *
 * Why the kubelet needs it here: containerd 1.6 on cgroup v1 learns of an
 * OOM kill from an eventfd on the container's memory.oom_control that its
 * shim registers only after the process has started. A container that
 * exceeds its limit within its first milliseconds is killed before that,
 * and CRI then reports the exit as reason `Error` (exit 137) instead of
 * `OOMKilled`; a late OOM event can also arrive after the kubelet has read
 * the exit. The kernel's own line is written before the process dies and
 * names the killed task's memory cgroup, whose last element carries the
 * container's ID on every cgroup layout containerd uses
 * (`/k8s.io/<id>`, `.../cri-containerd-<id>.scope`).
 *
 * The device is read without blocking (O_NONBLOCK: EAGAIN means caught up),
 * only when an exit needs it, continuing from where the last read stopped;
 * where /dev/kmsg cannot be read (no permission, not Linux) the runtime's
 * reason is all there is.
 */
import { closeSync, constants, openSync, readSync } from 'node:fs';

/** The IDs of the most recent kills kept; a check follows its exit by seconds. */
const remembered = 1024;
const killLine = /oom-kill:.*\btask_memcg=(\S+)/;
const containerID = /[0-9a-f]{64}/g;

export class KernelOOMLog {
  private fd: number | undefined;
  private failed = false;
  private readonly killed = new Set<string>();
  private readonly buf = Buffer.alloc(8192);

  constructor(private readonly device = '/dev/kmsg') {}

  /** Whether the kernel's log says it OOM-killed a task of this container. */
  oomKilled(id: string): boolean {
    this.catchUp();
    return this.killed.has(id);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Reads every record written since the last call (each read() of /dev/kmsg returns one record). */
  private catchUp(): void {
    if (this.failed) return;
    try {
      this.fd ??= openSync(this.device, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch {
      this.failed = true;
      return;
    }
    for (;;) {
      let n: number;
      try {
        n = readSync(this.fd, this.buf, 0, this.buf.length, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') continue; // records overwritten since the last read: the next read starts at the oldest left
        if (code !== 'EAGAIN') { this.close(); this.failed = true; }
        return;
      }
      if (n === 0) return;
      this.record(this.buf.toString('utf8', 0, n));
    }
  }

  /** One record of /dev/kmsg (`prio,seq,usec,flags;text`), or lines of a file holding such records. */
  private record(text: string): void {
    for (const line of text.split('\n')) {
      const m = killLine.exec(line);
      const ids = m?.[1]!.match(containerID);
      if (!ids) continue;
      const id = ids[ids.length - 1]!;
      this.killed.delete(id);
      this.killed.add(id);
      if (this.killed.size > remembered) this.killed.delete(this.killed.values().next().value!);
    }
  }
}
