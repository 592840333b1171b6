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
 * Only resources listed in coldStubs go cold: their stub must give every selector and index
 * the same values as the whole object (a unit test compares them).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Unstructured } from '../../api/unstructured.js';
import { seedRenderedJSON } from './rendered-json.js';
import type { ColdDictionary } from '../../util/cold-sweep.js';

/** The members of an object the cache reads without decoding it. */
export interface ColdStub {
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

type StubOf = (obj: Unstructured) => ColdStub;

/** metadata's members every reader of a cold object may ask for (namespace/name, labels, uid, resourceVersion). */
function metadataStub(obj: Unstructured): ColdStub['metadata'] {
  const m = obj.metadata ?? {};
  const out: ColdStub['metadata'] = { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion };
  // The labels object is the cached object's own (shared among pods by compact.ts): kept, not copied.
  if (m.labels !== undefined) out.labels = m.labels;
  return out;
}

/**
 * A pod's stub: what api/fields.ts podFields and node-index.ts read. Values are copied raw
 * (podFields turns them into strings itself); absent members stay absent.
 */
function podStub(obj: Unstructured): ColdStub {
  const spec = (obj.spec ?? {}) as Record<string, unknown>;
  const status = (obj.status ?? {}) as { podIPs?: Array<{ ip?: unknown }>; podIP?: unknown; phase?: unknown; nominatedNodeName?: unknown };
  const s: Record<string, unknown> = {};
  for (const k of ['nodeName', 'restartPolicy', 'schedulerName'] as const) if (spec[k] !== undefined) s[k] = spec[k];
  // podFields reads `serviceAccountName || serviceAccount`.
  const sa = spec.serviceAccountName || spec.serviceAccount;
  if (sa !== undefined) s.serviceAccountName = sa;
  if (spec.hostNetwork === true) s.hostNetwork = true;
  const st: Record<string, unknown> = {};
  if (status.phase !== undefined) st.phase = status.phase;
  // podFields reads the first of podIPs, else podIP.
  const ip = status.podIPs?.[0]?.ip ?? status.podIP;
  if (ip !== undefined) st.podIP = ip;
  if (status.nominatedNodeName !== undefined) st.nominatedNodeName = status.nominatedNodeName;
  return { metadata: metadataStub(obj), spec: s, status: st };
}

/**
 * The resources whose objects go cold, by storage prefix, with their stubs. Pods only: they
 * are the objects counted by the hundred thousand, and their selectable fields are few and
 * fixed (a custom resource's selectableFields would need its own stub).
 */
const coldStubs: Readonly<Record<string, StubOf>> = {
  '/registry/core/pods/': podStub,
};

/** The stub builder of the resource under `prefix`, or undefined when its objects stay decoded. */
export function coldStubFor(prefix: string): StubOf | undefined {
  return Object.hasOwn(coldStubs, prefix) ? coldStubs[prefix] : undefined;
}

/** An object as the cache keeps it once cold: its stub's members, its text as deflated bytes. */
export class ColdObject implements ColdStub {
  readonly metadata: ColdStub['metadata'];
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown>;

  private constructor(stub: ColdStub, private readonly bytes: string, private readonly dictionary: ColdDictionary) {
    this.metadata = stub.metadata;
    if (stub.spec) this.spec = stub.spec;
    if (stub.status) this.status = stub.status;
  }

  /** `obj` (whose text is `text`, JSON.stringify(obj)) as a cold object. */
  static of(obj: Unstructured, text: string, stubOf: StubOf, dictionary: ColdDictionary): ColdObject {
    // Kept as a one-byte string (a byte a character), not a Buffer: zlib's answer is a view of its
    // 16 KB output chunk, and a copy in a Buffer of its own cost 3-8 times the string's memory
    // (its ArrayBuffer and view objects, or Buffer's 8 KB slabs left part-used: measured in
    // bench/RESULTS.md `mem5-2026-12-06`); a string of ~100 bytes is its bytes and a 16-byte header.
    return new ColdObject(stubOf(obj), deflateRawSync(text, { dictionary }).toString('latin1'), dictionary);
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

/** Whether a cache entry is cold. */
export function isCold(entry: unknown): entry is ColdObject {
  return entry instanceof ColdObject;
}
