/**
 * The runtime side of the pod lifecycle event generator: changes to one pod
 * within the same microtask reach each listener once, after the change that
 * caused them has finished (a listener reading the runtime's status then sees
 * all of it).
 */
export class PodEventEmitter {
  private readonly listeners: ((uid: string) => void)[] = [];
  private readonly changed = new Set<string>();

  on(listener: (uid: string) => void): void { this.listeners.push(listener); }

  emit(uid: string): void {
    if (this.changed.has(uid)) return;
    this.changed.add(uid);
    if (this.changed.size !== 1) return;
    queueMicrotask(() => {
      const uids = [...this.changed];
      this.changed.clear();
      for (const u of uids) for (const l of this.listeners) l(u);
    });
  }
}
