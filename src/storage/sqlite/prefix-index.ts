/**
 * Watchers grouped by prefix, so routing an event costs one map lookup per distinct prefix
 * length rather than one test per watcher: thousands of watchers usually share a few prefixes
 * ("/registry/pods/", "/registry/pods/<namespace>/"), and those have few distinct lengths.
 */
export class PrefixIndex<T> {
  /** prefix length -> prefix -> members */
  private readonly byLength = new Map<number, Map<string, Set<T>>>();

  add(prefix: string, member: T): void {
    let byPrefix = this.byLength.get(prefix.length);
    if (!byPrefix) this.byLength.set(prefix.length, (byPrefix = new Map()));
    let members = byPrefix.get(prefix);
    if (!members) byPrefix.set(prefix, (members = new Set()));
    members.add(member);
  }

  remove(prefix: string, member: T): void {
    const byPrefix = this.byLength.get(prefix.length);
    const members = byPrefix?.get(prefix);
    if (!byPrefix || !members?.delete(member) || members.size > 0) return;
    byPrefix.delete(prefix);
    if (byPrefix.size === 0) this.byLength.delete(prefix.length);
  }

  /** Calls `visit` for every member whose prefix `key` starts with. */
  forEachMatch(key: string, visit: (member: T) => void): void {
    for (const [length, byPrefix] of this.byLength) {
      if (length > key.length) continue;
      const members = byPrefix.get(length === key.length ? key : key.slice(0, length));
      if (members) for (const member of members) visit(member);
    }
  }

  /** Every member, for shutting them all down. */
  *members(): Iterable<T> {
    for (const byPrefix of this.byLength.values()) {
      for (const members of byPrefix.values()) yield* members;
    }
  }
}
