/**
 * Cold cached objects (issue #20: 150,000 pods in a server under 1 GB). A pod the watch cache
 * holds decoded is about 2.4 KB of V8 heap even with its subtrees and strings shared
 * (bench/RESULTS.md `memsrv-2026-12-06`); its JSON text deflated against the text of another
 * pod of the resource as a dictionary is about 100-130 bytes. So a cached object nobody has read
 * or written for a while (cold-sweep.ts decides) is kept as those bytes (in a one-byte string:
 * see ColdObject.of), beside a stub of the few members the cache's
 * readers look at without the whole object: metadata's namespace, name, uid, resourceVersion and
 * labels, and the values the resource's field selectors and indexes read (a pod's spec.nodeName,
 * status.phase, ...). Selections, the node index and the watch ring's `prev` read the stub as
 * they read an object; everything else asks for the object (decode) or its text (text).
 *
 * Contract: text() is exactly JSON.stringify of the object that went cold (resourceVersion
 * included), so a list page or a watch event written from it is what the warm object would
 * have written; decode() is a fresh object equal to it, its text known (rendered-json.ts).
 * Only resources listed in coldForms go cold: their stub must give every selector and index
 * the same values as the whole object (a unit test compares them).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Unstructured } from '../../api/unstructured.js';
import { seedRenderedJSON } from './rendered-json.js';
import type { ColdDictionary } from '../../util/cold-sweep.js';
import { packRevision, unpackRevision, type PackedRevision } from '../../util/packed-revision.js';

/** The members of an object the cache reads without decoding it. */
export interface ColdStub {
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/**
 * Builds the cold form of `obj` around its deflated text (`bytes`, inflated with `dictionary`).
 * The form is one object: the stub's members are its own fields (see ColdPod).
 */
export type ColdForm = (obj: Unstructured, bytes: string, dictionary: ColdDictionary) => ColdObject;

/** An object as the cache keeps it once cold: its stub's members (a subclass's own), its text as deflated bytes. */
export abstract class ColdObject implements ColdStub {
  abstract readonly metadata: ColdStub['metadata'];
  abstract readonly spec?: Record<string, unknown>;
  abstract readonly status?: Record<string, unknown>;

  protected constructor(private readonly bytes: string, private readonly dictionary: ColdDictionary) {}

  /** `obj` (whose text is `text`, JSON.stringify(obj)) as a cold object of the form `form`. */
  static of(obj: Unstructured, text: string, form: ColdForm, dictionary: ColdDictionary): ColdObject {
    // Kept as a one-byte string (a byte a character), not a Buffer: zlib's answer is a view of its
    // 16 KB output chunk, and a copy in a Buffer of its own cost 3-8 times the string's memory
    // (its ArrayBuffer and view objects, or Buffer's 8 KB slabs left part-used: measured in
    // bench/RESULTS.md `mem5-2026-12-06`); a string of ~100 bytes is its bytes and a 16-byte header.
    return form(obj, deflateRawSync(text, { dictionary }).toString('latin1'), dictionary);
  }

  /** Bytes kept for the text (tests, benchmarks). */
  get size(): number { return this.bytes.length; }

  /** The object's JSON text, exactly as JSON.stringify wrote it when it went cold. */
  text(): string {
    return inflateRawSync(Buffer.from(this.bytes, 'latin1'), { dictionary: this.dictionary }).toString('utf8');
  }

  /** A fresh copy of the object, its text known (a watcher or an update's private copy reuses it). */
  decode(): Unstructured {
    const text = this.text();
    const obj = JSON.parse(text) as Unstructured;
    seedRenderedJSON(obj, text);
    return obj;
  }
}

/**
 * A cold pod: what api/fields.ts podFields and node-index.ts read, as fields of the one object;
 * `metadata`, `spec` and `status` (getters on the prototype) answer the object itself, so a reader
 * reads `stub.spec.nodeName` as it reads a pod's. Values are copied raw (podFields turns them into
 * strings itself); an absent member is undefined, which every reader takes as absent. A stub of
 * metadata, spec and status objects of their own cost three objects more a pod
 * (bench/RESULTS.md `mem12-2026-12-07`).
 */
class ColdPod extends ColdObject {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  /** util/packed-revision.ts: a number, not a string of its own a pod. */
  private readonly revision: PackedRevision;
  /** The cached object's own labels object (shared among pods by compact.ts): kept, not copied. */
  readonly labels?: Record<string, string>;
  readonly nodeName?: unknown;
  readonly restartPolicy?: unknown;
  readonly schedulerName?: unknown;
  /** podFields reads `serviceAccountName || serviceAccount`: the one it would read. */
  readonly serviceAccountName?: unknown;
  readonly hostNetwork?: true;
  readonly phase?: unknown;
  /** podFields reads the first of podIPs, else podIP: the one it would read. */
  readonly podIP?: unknown;
  readonly nominatedNodeName?: unknown;

  constructor(obj: Unstructured, bytes: string, dictionary: ColdDictionary) {
    super(bytes, dictionary);
    const m = obj.metadata ?? {};
    const spec = (obj.spec ?? {}) as Record<string, unknown>;
    const status = (obj.status ?? {}) as { podIPs?: Array<{ ip?: unknown }>; podIP?: unknown; phase?: unknown; nominatedNodeName?: unknown };
    this.name = m.name;
    this.namespace = m.namespace;
    this.uid = m.uid;
    this.revision = packRevision(m.resourceVersion);
    this.labels = m.labels;
    this.nodeName = spec.nodeName;
    this.restartPolicy = spec.restartPolicy;
    this.schedulerName = spec.schedulerName;
    this.serviceAccountName = spec.serviceAccountName || spec.serviceAccount;
    this.hostNetwork = spec.hostNetwork === true ? true : undefined;
    this.phase = status.phase;
    this.podIP = status.podIPs?.[0]?.ip ?? status.podIP;
    this.nominatedNodeName = status.nominatedNodeName;
  }

  get resourceVersion(): string | undefined { return unpackRevision(this.revision); }
  get metadata(): ColdStub['metadata'] { return this; }
  get spec(): Record<string, unknown> { return this as unknown as Record<string, unknown>; }
  get status(): Record<string, unknown> { return this as unknown as Record<string, unknown>; }
}

/**
 * The resources whose objects go cold, by storage prefix, with their cold forms. Pods only: they
 * are the objects counted by the hundred thousand, and their selectable fields are few and
 * fixed (a custom resource's selectableFields would need its own form).
 */
const coldForms: Readonly<Record<string, ColdForm>> = {
  '/registry/core/pods/': (obj, bytes, dictionary) => new ColdPod(obj, bytes, dictionary),
};

/** The cold form of the resource under `prefix`, or undefined when its objects stay decoded. */
export function coldFormFor(prefix: string): ColdForm | undefined {
  return Object.hasOwn(coldForms, prefix) ? coldForms[prefix] : undefined;
}

/** What a cold object of the resource under `prefix` answers its readers without its text (tests). */
export function coldStubFor(prefix: string): ((obj: Unstructured) => ColdStub) | undefined {
  const form = coldFormFor(prefix);
  return form && ((obj) => form(obj, '', Buffer.alloc(0)));
}

/** Whether a cache entry is cold. */
export function isCold(entry: unknown): entry is ColdObject {
  return entry instanceof ColdObject;
}
