/**
 * The shape of k8ts's protobuf schema table (k8s-schema.ts, written by
 * scripts/gen-protobuf-schema.mjs) and the protobufjs Root built from it
 * once, on first use. The table keeps what protobufjs needs for the wire
 * (numbers, types, rules) plus what the JSON form needs (names, omitempty,
 * pointers, inline structs), which generated.proto alone does not say.
 */
import type protobuf from 'protobufjs';
import { lazyRequire } from '../../util/lazy-require.js';

const protobufjs = lazyRequire<typeof protobuf>('protobufjs');
import { k8sSchema } from './k8s-schema.js';

export interface ProtoField {
  id: number;
  /** A scalar type or the full name of a message, without the leading dot. */
  type: string;
  rule?: 'repeated';
  keyType?: string;
  /** The Go field's JSON name when it is not the protobuf name ('' for an inline struct). */
  json?: string;
  /** Go struct tag facts: o = omitempty, p = pointer, i = inline. */
  go?: string;
}

export interface ProtoMessage {
  fields: Record<string, ProtoField>;
  /** The message stands for a Go slice type: its JSON form is its `items`. */
  slice?: boolean;
}

/** Messages by protobuf package (`k8s.io.api.core.v1`), then by name. */
export type ProtoTable = Record<string, Record<string, ProtoMessage>>;

let root: protobuf.Root | undefined;

/** Past JSON's nesting limit (maxNestingDepth), with room for the messages a JSON level can stand for. */
const maxEncodeDepth = 1000;

/** The protobufjs Root of every message in the table. */
export function protoRoot(): protobuf.Root {
  if (root) return root;
  const nested: Record<string, any> = {};
  for (const [pkg, messages] of Object.entries(k8sSchema)) {
    let ns = nested;
    for (const part of pkg.split('.')) {
      ns[part] ??= { nested: {} };
      ns = ns[part].nested;
    }
    for (const [name, m] of Object.entries(messages)) {
      const fields: Record<string, any> = {};
      for (const [fname, f] of Object.entries(m.fields)) {
        const type = /^[a-z0-9]+$/.test(f.type) ? f.type : `.${f.type}`;
        fields[fname] = { id: f.id, type, ...(f.rule ? { rule: f.rule } : {}), ...(f.keyType ? { keyType: f.keyType } : {}) };
      }
      // proto2, as generated.proto declares: explicit presence (a pointer's zero is written), repeated scalars unpacked.
      ns[name] = { edition: 'proto2', fields };
    }
  }
  // Anything storable encodes: JSON is at most 400 deep, so a CRD's nested schemas can be deeper than
  // protobufjs's 100 (Go's marshalling has no limit). Decoding keeps its own limit (Reader.recursionLimit).
  const pb = protobufjs();
  pb.util.recursionLimit = maxEncodeDepth;
  root = pb.Root.fromJSON({ nested });
  root.resolveAll();
  for (const t of types(root, pb)) t.ctor = leanConstructor();
  return root;
}

/** Every message type under `ns`, depth first. */
function* types(ns: protobuf.NamespaceBase, pb: typeof protobuf): Generator<protobuf.Type> {
  for (const child of ns.nestedArray) {
    if (child instanceof pb.Type) yield child;
    if (child instanceof pb.Namespace) yield* types(child, pb);
  }
}

/**
 * A message constructor without protobufjs's own empty array or object per repeated or map
 * field: protobufjs gives every message it decodes one of each (so callers may push to them),
 * and a PodSpec of 1,000,000 empty containers (hardening issue, finding 3) became 8,000,000
 * empty arrays in the heavy lane's worker, most of its heap and garbage collection. Decoded
 * messages are only read here (codec.ts's messageToJSON), and protobufjs's decoder makes a
 * field's own array or object when the wire holds one (it checks for the prototype's frozen
 * empties), so an absent field reads as the prototype's empty value, as before.
 */
function leanConstructor(): protobuf.Constructor<object> {
  return function Message(this: Record<string, unknown>, p?: Record<string, unknown>) {
    if (p) for (const k of Object.keys(p)) if (p[k] != null && k !== '__proto__') this[k] = p[k];
  } as unknown as protobuf.Constructor<object>;
}

/** The table entry of a message by full name, or undefined. */
export function protoMessage(fullName: string): ProtoMessage | undefined {
  const dot = fullName.lastIndexOf('.');
  return k8sSchema[fullName.slice(0, dot)]?.[fullName.slice(dot + 1)];
}
