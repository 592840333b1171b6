/**
 * Cold objects in an informer's cache (issue #20: 150,000 pods in the control loops under 1 GB).
 * A pod the control loops' informers hold decoded costs ~1.8 KB of heap even with its subtrees
 * and strings shared (bench/RESULTS.md `mem7-2026-12-06`); its JSON text deflated against the
 * text of recent pods as a dictionary is ~220 bytes. So an object no watch event has changed for
 * a while (cold-sweep.ts decides) is kept as those bytes, beside the two members the informer
 * reads without decoding: its resourceVersion (is an event news?) and its labels (the shared,
 * frozen labels object: a label filter of a list needs no decode).
 *
 * Contract: decode() returns a fresh object equal to the one that went cold (a JSON round trip:
 * the informer's objects come from JSON, and a member set to undefined, as the managedFields
 * transform does, is left out as JSON.stringify leaves it out). Readers get it as they got the
 * warm object and must not change it either.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ColdDictionary } from '../util/cold-sweep.js';
import { packRevision, unpackRevision, type PackedRevision } from '../util/packed-revision.js';

interface ObjectMeta { metadata?: { resourceVersion?: string; labels?: Record<string, string> } }

export class ColdObject {
  private constructor(
    /** util/packed-revision.ts: a number, not a string of its own a pod. */
    private readonly revision: PackedRevision,
    readonly labels: Readonly<Record<string, string>> | undefined,
    /** The deflated text as a one-byte string: zlib's answer is a view of its 16 KB chunk, and a Buffer copy of ~200 bytes costs several times a string's memory (bench/RESULTS.md `mem5-2026-12-06`). */
    private readonly bytes: string,
    private readonly dictionary: ColdDictionary,
  ) {}

  /** `obj`, whose JSON text is `text`, as a cold object. */
  static of(obj: ObjectMeta, text: string, dictionary: ColdDictionary): ColdObject {
    const m = obj.metadata;
    return new ColdObject(packRevision(m?.resourceVersion), m?.labels, deflateRawSync(text, { dictionary }).toString('latin1'), dictionary);
  }

  /** The object's resourceVersion (is an event news?). */
  get resourceVersion(): string | undefined { return unpackRevision(this.revision); }

  /** Bytes kept for the text (tests, benchmarks). */
  get size(): number { return this.bytes.length; }

  /** The object's JSON text, as JSON.stringify wrote it when it went cold. */
  text(): string {
    return inflateRawSync(Buffer.from(this.bytes, 'latin1'), { dictionary: this.dictionary }).toString('utf8');
  }

  /** A fresh copy of the object that went cold. */
  decode(): any { return JSON.parse(this.text()); }
}

export function isCold(entry: unknown): entry is ColdObject {
  return entry instanceof ColdObject;
}
