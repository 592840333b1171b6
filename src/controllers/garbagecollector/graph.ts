/**
 * The dependency graph of the garbage collector (upstream
 * `pkg/controller/garbagecollector/graph.go`, `graph_builder.go`): one node
 * per object uid, edges from ownerReferences. Informer events update it
 * synchronously and say which nodes the collector must look at:
 *  - an owner that is not in the graph becomes a "virtual" node, checked
 *    with a live GET (attemptToDelete);
 *  - an object deleted: its dependents (attemptToDelete), and its owners
 *    that wait for their dependents (foreground deletion);
 *  - an object that starts being deleted with the `orphan` finalizer:
 *    attemptToOrphan; with `foregroundDeletion`: it and its dependents
 *    (attemptToDelete);
 *  - a blocking ownerReference removed or unblocked: that owner.
 * No I/O here.
 */
import type { Unstructured } from '../../api/unstructured.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** An object's coordinates: the ownerReference fields plus its namespace. */
export interface ObjectIdentity { apiVersion: string; kind: string; name: string; namespace: string; uid: string }

export const FinalizerOrphanDependents = 'orphan';
export const FinalizerDeleteDependents = 'foregroundDeletion';

export const identityKey = (i: ObjectIdentity) => `${i.apiVersion}/${i.kind}/${i.namespace}/${i.name}/${i.uid}`;
const sameIdentity = (a: ObjectIdentity, b: ObjectIdentity) => identityKey(a) === identityKey(b);

/** What a node without dependents answers: most objects (every pod) never have one. */
const noDependents: ReadonlySet<GraphNode> = new Set();
const noOwners: readonly OwnerReference[] = Object.freeze([]);

const OBSERVED = 1;
const BEING_DELETED = 2;
const DELETING_DEPENDENTS = 4;

/**
 * One object of the graph. The graph holds a node per pod, so its shape is kept small (bench/RESULTS.md
 * `meminf2-2026-12-06`): the identity's fields are the node's own (not an object of their own) and
 * the three flags share one small integer; `identity` answers a copy, as the replaced object did.
 */
export class GraphNode {
  /**
   * Made on the first dependent and dropped with the last: an empty Set cost ~150 bytes per node,
   * a third of the graph at scale, and the graph holds a node per pod (bench/RESULTS.md `meminf-2026-12-06`).
   */
  private deps?: Set<GraphNode> = undefined;
  owners: readonly OwnerReference[] = noOwners;
  /** The identity's fields, read directly where a copy is not needed; set through `identity`. */
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  /** The object's uid: the graph's key, which never changes for a node. */
  readonly uid: string;
  private flags = 0;

  constructor(identity: ObjectIdentity, public readonly virtual: boolean) {
    this.apiVersion = identity.apiVersion;
    this.kind = identity.kind;
    this.name = identity.name;
    this.namespace = identity.namespace;
    this.uid = identity.uid;
  }

  get identity(): ObjectIdentity {
    return { apiVersion: this.apiVersion, kind: this.kind, name: this.name, namespace: this.namespace, uid: this.uid };
  }

  /** New coordinates for the same uid (an observed object replacing a virtual node's guess). */
  set identity(i: ObjectIdentity) {
    this.apiVersion = i.apiVersion;
    this.kind = i.kind;
    this.name = i.name;
    this.namespace = i.namespace;
  }

  /** Seen through an informer (not only referenced as an owner). */
  get observed(): boolean { return (this.flags & OBSERVED) !== 0; }
  set observed(v: boolean) { this.setFlag(OBSERVED, v); }
  get beingDeleted(): boolean { return (this.flags & BEING_DELETED) !== 0; }
  set beingDeleted(v: boolean) { this.setFlag(BEING_DELETED, v); }
  get deletingDependents(): boolean { return (this.flags & DELETING_DEPENDENTS) !== 0; }
  set deletingDependents(v: boolean) { this.setFlag(DELETING_DEPENDENTS, v); }

  private setFlag(f: number, v: boolean): void { this.flags = v ? this.flags | f : this.flags & ~f; }

  get dependents(): ReadonlySet<GraphNode> { return this.deps ?? noDependents; }

  addDependent(node: GraphNode): void { (this.deps ??= new Set()).add(node); }

  removeDependent(node: GraphNode): void {
    if (!this.deps?.delete(node) || this.deps.size > 0) return;
    this.deps = undefined;
  }

  /** Dependents whose ownerReference to this node has blockOwnerDeletion. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((d) => d.owners.some((o) => o.uid === this.uid && o.blockOwnerDeletion));
  }
}

/** Which nodes the event asks the collector to process. */
export interface Enqueue {
  attemptToDelete: GraphNode[];
  attemptToOrphan: GraphNode[];
  /** Owners referenced from another namespace than theirs (for an OwnerRefInvalidNamespace event). */
  invalidNamespaceRefs: { dependent: GraphNode; owner: OwnerReference }[];
  /** Identities now known absent (for the absent-owner cache). */
  absent: ObjectIdentity[];
}

const emptyEnqueue = (): Enqueue => ({ attemptToDelete: [], attemptToOrphan: [], invalidNamespaceRefs: [], absent: [] });

const hasFinalizer = (obj: Unstructured | undefined, f: string) => (obj?.metadata?.finalizers ?? []).includes(f);
const beingDeleted = (obj: Unstructured | undefined) => !!obj?.metadata?.deletionTimestamp;

/** deletionStartsWithFinalizer: being deleted with the finalizer now, and not before. */
export function deletionStartsWithFinalizer(oldObj: Unstructured | undefined, newObj: Unstructured, finalizer: string): boolean {
  if (!beingDeleted(newObj) || !hasFinalizer(newObj, finalizer)) return false;
  if (!oldObj) return true;
  return !beingDeleted(oldObj) || !hasFinalizer(oldObj, finalizer);
}

/** referencesDiffs by uid. */
export function referencesDiffs(oldRefs: readonly OwnerReference[], newRefs: readonly OwnerReference[]) {
  const old = new Map(oldRefs.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: { oldRef: OwnerReference; newRef: OwnerReference }[] = [];
  for (const r of newRefs) {
    const o = old.get(r.uid);
    if (!o) added.push(r);
    else if (JSON.stringify(o) !== JSON.stringify(r)) changed.push({ oldRef: o, newRef: r });
    old.delete(r.uid);
  }
  return { added, removed: [...old.values()], changed };
}

export class Graph {
  private readonly uidToNode = new Map<string, GraphNode>();

  /** resolveNamespaced: whether an owner kind is namespaced (undefined when unknown). */
  constructor(private readonly isNamespaced: (apiVersion: string, kind: string) => boolean | undefined) {}

  get(uid: string): GraphNode | undefined { return this.uidToNode.get(uid); }
  get size(): number { return this.uidToNode.size; }

  /** An informer add or update. */
  observe(identity: ObjectIdentity, obj: Unstructured, oldObj?: Unstructured): Enqueue {
    const out = emptyEnqueue();
    let node = this.uidToNode.get(identity.uid);
    if (node && !node.observed) {
      if (!sameIdentity(node.identity, identity)) {
        // The virtual node's coordinates came from a reference; recheck the dependents that used them.
        out.attemptToDelete.push(...node.dependents);
        node.identity = identity;
      }
      node.observed = true;
    }
    const owners: readonly OwnerReference[] = obj.metadata?.ownerReferences ?? noOwners;
    if (!node) {
      node = new GraphNode(identity, false);
      node.observed = true;
      node.owners = owners;
      node.beingDeleted = beingDeleted(obj);
      node.deletingDependents = node.beingDeleted && hasFinalizer(obj, FinalizerDeleteDependents);
      this.uidToNode.set(identity.uid, node);
      this.addDependentToOwners(node, owners, out);
    } else {
      node.identity = identity;
      const { added, removed, changed } = referencesDiffs(node.owners, owners);
      if (added.length || removed.length || changed.length) {
        this.addUnblockedOwners(removed, changed, out);
        node.owners = owners;
        this.addDependentToOwners(node, added, out);
        for (const r of removed) this.uidToNode.get(r.uid)?.removeDependent(node);
      }
      if (beingDeleted(obj)) node.beingDeleted = true;
    }
    this.processTransitions(oldObj, obj, node, out);
    return out;
  }

  /**
   * An object known to be gone: from the informer, or "virtual" when a live
   * GET found nothing (or another uid) under the node's coordinates.
   */
  remove(identity: ObjectIdentity, virtual: boolean): Enqueue {
    const out = emptyEnqueue();
    const node = this.uidToNode.get(identity.uid);
    if (!node) return out;
    // A real node is not removed on the word of a lookup by other coordinates.
    if (virtual && node.observed && !sameIdentity(node.identity, identity)) return out;
    this.uidToNode.delete(identity.uid);
    for (const o of node.owners) this.uidToNode.get(o.uid)?.removeDependent(node);
    if (node.dependents.size) out.absent.push(identity);
    out.attemptToDelete.push(...node.dependents);
    for (const o of node.owners) {
      const owner = this.uidToNode.get(o.uid);
      if (owner?.deletingDependents) out.attemptToDelete.push(owner);
    }
    return out;
  }

  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[], out: Enqueue): void {
    let potentiallyInvalid = false;
    for (const ref of owners) {
      let owner = this.uidToNode.get(ref.uid);
      if (!owner) {
        const namespaced = this.isNamespaced(ref.apiVersion, ref.kind);
        owner = new GraphNode({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid,
          namespace: namespaced === false ? '' : node.namespace }, true);
        this.uidToNode.set(ref.uid, owner);
        owner.addDependent(node);
        out.attemptToDelete.push(owner);
        continue;
      }
      owner.addDependent(node);
      if (potentiallyInvalid) continue;
      const ownerNamespace = owner.namespace;
      if (ownerNamespace && ownerNamespace !== node.namespace) {
        if (owner.observed) out.invalidNamespaceRefs.push({ dependent: node, owner: ref });
        potentiallyInvalid = true;
      } else if (owner.kind !== ref.kind || owner.name !== ref.name || owner.apiVersion !== ref.apiVersion) {
        potentiallyInvalid = true;
      } else if (!ownerNamespace && ownerNamespace !== node.namespace && !owner.observed) {
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) out.attemptToDelete.push(node);
  }

  private addUnblockedOwners(removed: readonly OwnerReference[], changed: readonly { oldRef: OwnerReference; newRef: OwnerReference }[], out: Enqueue): void {
    for (const r of removed) {
      const owner = r.blockOwnerDeletion ? this.uidToNode.get(r.uid) : undefined;
      if (owner) out.attemptToDelete.push(owner);
    }
    for (const c of changed) {
      const owner = c.oldRef.blockOwnerDeletion && !c.newRef.blockOwnerDeletion ? this.uidToNode.get(c.newRef.uid) : undefined;
      if (owner) out.attemptToDelete.push(owner);
    }
  }

  private processTransitions(oldObj: Unstructured | undefined, obj: Unstructured, node: GraphNode, out: Enqueue): void {
    if (deletionStartsWithFinalizer(oldObj, obj, FinalizerOrphanDependents)) {
      out.attemptToOrphan.push(node);
      return;
    }
    if (deletionStartsWithFinalizer(oldObj, obj, FinalizerDeleteDependents)) {
      node.deletingDependents = true;
      out.attemptToDelete.push(...node.dependents, node);
    }
  }
}
