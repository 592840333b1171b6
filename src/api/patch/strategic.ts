/**
 * Strategic merge patch, applied the way kube-apiserver applies it
 * (apimachinery `pkg/util/strategicpatch/patch.go`, `StrategicMergeMapPatch`
 * with MergeParallelList and IgnoreUnmatchedNulls). The rules, in the order
 * `mergeMap` applies them:
 *
 *  1. `$patch: replace` on a map replaces the map with the patch; `$patch: delete`
 *     empties it; any other `$patch` value is an error.
 *  2. `$retainKeys: [...]` drops every original key not listed; a patch key
 *     (other than nulls and directives) outside the list is a 400.
 *  3. `$setElementOrder/<list>: [...]` merges that list first and then orders
 *     it: the listed items in the listed order, server-only items interleaved
 *     where they stood among them.
 *  4. For every other key, `$deleteFromPrimitiveList/<list>` names the list
 *     whose listed values are removed.
 *  5. `null` deletes the key.
 *  6. A key absent from the original takes the patch value, with its nulls and
 *     `$patch` maps/items dropped.
 *  7. Values of different JSON types: the patch value wins (same cleaning).
 *  8. Two maps merge recursively (rule 1 onwards), unless the field's strategy
 *     is `replace`.
 *  9. Two lists merge only when the field's strategy is `merge` (or for a
 *     delete list); otherwise the patch list replaces the original.
 *     Lists of maps merge by the merge key: `$patch: delete` items remove,
 *     `$patch: replace` replaces the list with the other items, matching
 *     items merge recursively, new items are added. Lists of primitives are
 *     unioned. The result keeps patch items in patch order with server-only
 *     items interleaved by their original order.
 * 10. Anything else: the patch value replaces the original.
 *
 * Values the patch supplies verbatim (replacing lists and maps, new list
 * items) lose their null-valued keys, as upstream's decoding into Go structs
 * loses them. Both arguments are mutated: callers pass copies.
 */
import {
  PatchError, badArgType, badPatch, badPatchType, errBadPatchFormatForPrimitiveList, errBadPatchFormatForRetainKeys,
  errBadPatchFormatForSetElementOrderList, errNoListOfLists, goFormat, internalPatch, noMergeKey, unprocessablePatch,
} from './errors.js';
import { JSONMap, setMember } from './json.js';
import { FieldPatchMeta, PatchSchema, PatchTypeGraph, lookupField } from './schema.js';

const directiveMarker = '$patch';
const deleteDirective = 'delete';
const replaceDirective = 'replace';
const mergeDirective = 'merge';
const retainKeysDirective = '$retainKeys';
const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
const setElementOrderPrefix = '$setElementOrder';

const mapTypeName = 'map[string]interface {}';
const sliceTypeName = '[]interface {}';

/** Go's reflect.Kind of a decoded JSON value, the granularity upstream compares at. */
type Kind = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'nil';

function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'object': return 'map';
    case 'string': return 'string';
    case 'number': return 'number';
    default: return 'bool';
  }
}

const isMap = (v: unknown): v is JSONMap => kindOf(v) === 'map';

/** The graph and the Go type at the current position (undefined: untyped). */
interface Position { graph: PatchTypeGraph; type: string | undefined }

/** Applies a strategic merge patch to `original`; both are mutated. */
export function strategicMergePatch(original: JSONMap, patch: JSONMap, schema: PatchSchema): JSONMap {
  return mergeMap(original, patch, { graph: schema.graph, type: schema.root });
}

function mergeMap(original: JSONMap | undefined, patch: JSONMap, pos: Position): JSONMap {
  // Rule 1.
  if (Object.hasOwn(patch, directiveMarker)) return handleDirectiveInMergeMap(patch[directiveMarker], patch);
  const target = original ?? {};
  applyRetainKeysDirective(target, patch); // rule 2
  mergePatchIntoOriginal(target, patch, pos); // rule 3
  for (const [patchKey, patchV] of Object.entries(patch)) {
    // Rule 4.
    const isDeleteList = patchKey.startsWith(deleteFromPrimitiveListPrefix);
    const k = isDeleteList ? extractKey(patchKey, deleteFromPrimitiveListPrefix) : patchKey;
    if (patchV === null) { // rule 5
      delete target[k];
      continue;
    }
    if (!Object.hasOwn(target, k) || kindOf(target[k]) !== kindOf(patchV)) { // rules 6, 7
      if (!isDeleteList) setCleaned(target, k, patchV);
      continue;
    }
    setMember(target, k, mergeValues(target[k], patchV, lookupField(pos.graph, pos.type, k), pos.graph, isDeleteList));
  }
  return target;
}

/** Rules 8–10 for two values of the same kind. */
function mergeValues(orig: unknown, patchV: unknown, field: FieldPatchMeta, graph: PatchTypeGraph, isDeleteList: boolean): unknown {
  const strategy = extractRetainKeysPatchStrategy(field.strategies ?? []);
  const sub: Position = { graph, type: field.type };
  switch (kindOf(orig)) {
    case 'map':
      if (strategy === replaceDirective) return pruneNulls(patchV);
      return mergeMap(orig as JSONMap, patchV as JSONMap, sub);
    case 'slice':
      return mergeSliceHandler(orig as unknown[], patchV as unknown[], sub, strategy, field.patchMergeKey ?? '', isDeleteList);
    default: {
      const [v] = removeDirectives(patchV);
      return v;
    }
  }
}

function handleDirectiveInMergeMap(directive: unknown, patch: JSONMap): JSONMap {
  if (directive === replaceDirective) {
    delete patch[directiveMarker];
    return pruneNulls(patch) as JSONMap;
  }
  if (directive === deleteDirective) return {};
  throw badPatchType(directive, patch);
}

/** Sets `target[k]` to a patch value minus its nulls and `$patch` maps; drops the key if the value is a `$patch` map. */
function setCleaned(target: JSONMap, k: string, patchV: unknown): void {
  discardNullValuesFromPatch(patchV);
  const [v, keep] = removeDirectives(patchV);
  if (keep) setMember(target, k, v);
  else delete target[k];
}

function applyRetainKeysDirective(original: JSONMap, patch: JSONMap): void {
  if (!Object.hasOwn(patch, retainKeysDirective)) return;
  const retainKeys = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retainKeys)) throw badPatch(errBadPatchFormatForRetainKeys);
  const retained = new Set<unknown>(retainKeys);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListPrefix) || k.startsWith(setElementOrderPrefix)) continue;
    if (!retained.has(k)) throw badPatch(errBadPatchFormatForRetainKeys);
  }
  for (const k of Object.keys(original)) {
    if (!retained.has(k)) delete original[k];
  }
}

/** Rule 3: merges each list named by a `$setElementOrder/<list>` directive and enforces its order. */
function mergePatchIntoOriginal(original: JSONMap, patch: JSONMap, pos: Position): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType(sliceTypeName, order);
    const listKey = extractKey(key, setElementOrderPrefix);
    const foundOriginal = Object.hasOwn(original, listKey);
    const foundPatch = Object.hasOwn(patch, listKey);
    const originalList = foundOriginal ? asSlice(original[listKey]) : undefined;
    const patchList = foundPatch ? asSlice(patch[listKey]) : undefined;
    const field = lookupField(pos.graph, pos.type, listKey);
    const mergeKey = field.patchMergeKey ?? '';
    const strategy = extractRetainKeysPatchStrategy(field.strategies ?? []);
    validatePatchWithSetOrderList(patchList ?? [], order, mergeKey);

    let merged: unknown[];
    let serverOrder = originalList ?? [];
    if (originalList && !patchList) merged = originalList;
    else if (!originalList && patchList) merged = removeDirectives(patchList)[0] as unknown[];
    else if (originalList && patchList) {
      if (strategy === mergeDirective) serverOrder = originalAfterInPlaceMerge(originalList, patchList, mergeKey);
      merged = mergeSliceHandler(originalList, patchList, { graph: pos.graph, type: field.type }, strategy, mergeKey, false);
    } else continue;

    const [patchItems, serverOnly] = partition(merged, order, mergeKey);
    const kind = sliceElementKind(originalList ?? [], patchList ?? []);
    setMember(original, listKey, normalizeElementOrder(patchItems, serverOnly, order, serverOrder, mergeKey, kind));
    delete patch[listKey];
  }
}

/**
 * The original list as upstream's ordering step sees it after merging. Go's
 * mergeSlice edits the original list's backing array in place: each
 * `$patch: delete` shifts the later items left (the last slot keeps its old
 * item), and new items appended afterwards land in the freed slots until the
 * array is full. mergePatchIntoOriginal then orders the result by that
 * aliased view, so the same edits are replayed here (the apiserver's
 * original lists are built with length = capacity). For primitive lists only
 * an empty patch aliases: the in-place de-duplication then shows through.
 */
function originalAfterInPlaceMerge(original: unknown[], patch: unknown[], mergeKey: string): unknown[] {
  const view = [...original];
  if (original.length === 0 && patch.length === 0) return view;
  if (!patch.concat(original).every(isMap)) {
    if (patch.length === 0) goDeduplicateInPlace(view);
    return view;
  }
  const slice = [...original];
  let replaced = false;
  for (const item of patch as JSONMap[]) {
    if (!Object.hasOwn(item, directiveMarker)) continue;
    if (item[directiveMarker] === replaceDirective) replaced = true;
    if (item[directiveMarker] !== deleteDirective) continue;
    for (let i = findInView(slice, mergeKey, item[mergeKey]); i >= 0; i = findInView(slice, mergeKey, item[mergeKey])) {
      view.copyWithin(i, i + 1, slice.length);
      slice.splice(i, 1);
    }
  }
  if (replaced) return view;
  for (const item of patch as JSONMap[]) {
    if (Object.hasOwn(item, directiveMarker) || findInView(slice, mergeKey, item[mergeKey]) >= 0) continue;
    if (slice.length < view.length) view[slice.length] = item;
    slice.push(item);
  }
  return view;
}

function findInView(list: unknown[], mergeKey: string, value: unknown): number {
  return list.findIndex((v) => isMap(v) && Object.hasOwn(v, mergeKey) && v[mergeKey] === value);
}

/** Go's deduplicateScalars, which swaps each duplicate with the current last item. */
function goDeduplicateInPlace(s: unknown[]): void {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        length--;
        j--;
      }
    }
  }
}

function asSlice(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw badArgType(sliceTypeName, v);
  return v;
}

/**
 * The items of the patch list (minus `$patch: delete` items) must appear in the
 * `$setElementOrder` list in the same relative order.
 */
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < nonDelete.length && o < order.length) {
    if (isMap(nonDelete[p]) && Object.hasOwn(nonDelete[p] as JSONMap, directiveMarker)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < nonDelete.length && o >= order.length) {
    throw internalPatch(`The order in patch list:\n${goFormat(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goFormat(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isMap(left)) throw badArgType(mapTypeName, left);
  if (!isMap(right)) throw badArgType(mapTypeName, right);
  if (!Object.hasOwn(left, mergeKey)) throw noMergeKey(left, mergeKey);
  if (!Object.hasOwn(right, mergeKey)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

/** `$setElementOrder/x` → `x`; a bare prefix without '/' is a 400. */
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    throw badPatch(prefix === deleteFromPrimitiveListPrefix ? errBadPatchFormatForPrimitiveList : errBadPatchFormatForSetElementOrderList);
  }
  return s.slice(slash + 1);
}

function extractRetainKeysPatchStrategy(strategies: readonly string[]): string {
  switch (strategies.length) {
    case 0: return '';
    case 1: return strategies[0] === 'retainKeys' ? '' : strategies[0];
    case 2:
      if (strategies[0] === 'retainKeys') return strategies[1];
      if (strategies[1] === 'retainKeys') return strategies[0];
      throw internalPatch(`unexpected patch strategy: ${goFormat(strategies)}`);
    default:
      throw internalPatch(`unexpected patch strategy: ${goFormat(strategies)}`);
  }
}

function mergeSliceHandler(
  original: unknown[], patch: unknown[], pos: Position, strategy: string, mergeKey: string, isDeleteList: boolean,
): unknown[] {
  if (strategy === mergeDirective || isDeleteList) return mergeSlice(original, patch, pos, mergeKey, isDeleteList);
  return pruneNulls(patch) as unknown[];
}

/** Rule 9 for lists with the merge strategy. */
function mergeSlice(original: unknown[], patch: unknown[], pos: Position, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let serverOrder = original;
  let patchOrder = patch;
  let merged: unknown[];
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (!mergeKey) throw internalPatch(`cannot merge lists without merge key for ${pos.type ? 'struct' : 'string'}`);
    [serverOrder, patchOrder] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = mergeSliceWithoutSpecialElements(serverOrder, patchOrder, mergeKey, pos);
  }
  const [patchItems, serverOnly] = partition(merged, patchOrder, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, patchOrder, serverOrder, mergeKey, kind);
}

/** Applies `$patch: delete|replace` items; returns the remaining original and the plain patch items. */
function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let remaining = original;
  let replace = false;
  for (const v of patch) {
    const item = v as JSONMap;
    if (!Object.hasOwn(item, directiveMarker)) {
      plain.push(v);
      continue;
    }
    const directive = item[directiveMarker];
    if (directive === deleteDirective) {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      remaining = deleteMatchingEntries(remaining, mergeKey, item[mergeKey]);
    } else if (directive === replaceDirective) {
      replace = true; // keep going to prune the other directive items
    } else if (directive === mergeDirective) {
      throw internalPatch('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  return replace ? [pruneNulls(plain) as unknown[], []] : [remaining, plain];
}

function deleteMatchingEntries(original: unknown[], mergeKey: string, value: unknown): unknown[] {
  original.forEach((v, i) => {
    if (!isMap(v)) throw internalPatch(`value for key ${i} is not a map`);
  });
  return original.filter((v) => !(Object.hasOwn(v as JSONMap, mergeKey) && (v as JSONMap)[mergeKey] === value));
}

/** Merges patch items into their original by merge key; appends the new ones. */
function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, pos: Position): unknown[] {
  const merged = [...original];
  for (const v of patch) {
    const item = v as JSONMap;
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const i = findIndexByMergeKey(merged, mergeKey, item[mergeKey]);
    if (i >= 0) merged[i] = mergeMap(merged[i] as JSONMap, item, pos);
    else merged.push(pruneNulls(item));
  }
  return merged;
}

function findIndexByMergeKey(list: unknown[], mergeKey: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isMap(v)) throw internalPatch(`value for key ${i} is not a map`);
    if (Object.hasOwn(v, mergeKey) && v[mergeKey] === value) return i;
  }
  return -1;
}

function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  const drop = new Set(toDelete);
  return current.filter((v) => !drop.has(v));
}

function deduplicateScalars(s: unknown[]): unknown[] {
  return [...new Set(s)];
}

/**
 * The common element kind of the lists. Lists of lists are a 422; mixed
 * kinds and two empty lists are errors, as upstream's `sliceElementType`.
 */
function sliceElementKind(...lists: unknown[][]): Kind {
  let kind: Kind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = kindOf(v);
      if (kind === undefined) {
        if (k === 'slice') throw unprocessablePatch(errNoListOfLists);
        kind = k;
      } else if (k !== kind) {
        throw internalPatch(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (kind === undefined) throw internalPatch('no elements in any of the given slices');
  return kind;
}

/** Splits `list` into the items present in `by` (by merge key, or by value) and the others. */
function partition(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inBy: unknown[] = [];
  const others: unknown[] = [];
  if (!mergeKey) {
    const set = new Set(by);
    for (const v of list) (set.has(v) ? inBy : others).push(v);
    return [inBy, others];
  }
  for (const v of list) {
    if (!isMap(v)) throw badArgType(mapTypeName, v);
    if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    (findIndexByMergeKey(by, mergeKey, v[mergeKey]) >= 0 ? inBy : others).push(v);
  }
  return [inBy, others];
}

/**
 * Orders patch items by `patchOrder` and server-only items by `serverOrder`,
 * then interleaves them: a server-only item goes before a patch item only if
 * both appear in `serverOrder` and it came first there.
 */
function normalizeElementOrder(
  patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: Kind,
): unknown[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Stable sort of `toSort` by position in `order`; `$patch: delete` items go last. */
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: Kind): unknown[] {
  let items = toSort;
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, toSort, order);
    [items, toDelete] = extractToDeleteItems(toSort);
  }
  const sorted = [...items].sort((a, b) => {
    const ia = indexIn(order, a, mergeKey, kind);
    const ib = indexIn(order, b, mergeKey, kind);
    return ia >= 0 && ib >= 0 ? ia - ib : 0;
  });
  return [...sorted, ...toDelete];
}

function validateMergeKeyInLists(mergeKey: string, ...lists: unknown[][]): void {
  for (const list of lists) {
    for (const v of list) {
      if (!isMap(v)) throw badArgType(mapTypeName, v);
      if (!Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    }
  }
}

function extractToDeleteItems(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of list) {
    if (!isMap(v)) throw badArgType(mapTypeName, v);
    (v[directiveMarker] === deleteDirective ? toDelete : keep).push(v);
  }
  return [keep, toDelete];
}

/** Index of `value` in `list`, comparing merge-key values for maps and values otherwise. */
function indexIn(list: unknown[], value: unknown, mergeKey: string, kind: Kind): number {
  const key = (v: unknown) => (kind === 'map' ? (isMap(v) ? v[mergeKey] : undefined) : v);
  const wanted = key(value);
  return list.findIndex((v) => key(v) === wanted);
}

/**
 * Removes `$patch` maps (and list items) from a value taken from the patch.
 * Returns the cleaned value and whether it should be kept at all.
 */
function removeDirectives(obj: unknown): [unknown, boolean] {
  if (Array.isArray(obj)) {
    const out: unknown[] = [];
    for (const v of obj) {
      const [nv, keep] = removeDirectives(v);
      if (keep) out.push(nv);
    }
    return [out, true];
  }
  if (isMap(obj)) {
    if (Object.hasOwn(obj, directiveMarker)) return [undefined, false];
    for (const [k, v] of Object.entries(obj)) {
      const [nv, keep] = removeDirectives(v);
      if (keep) setMember(obj, k, nv);
      else delete obj[k];
    }
  }
  return [obj, true];
}

/** Deletes null-valued keys, recursively through maps and lists. */
function discardNullValuesFromPatch(v: unknown): void {
  if (Array.isArray(v)) {
    v.forEach(discardNullValuesFromPatch);
  } else if (isMap(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (x === null) delete v[k];
      else discardNullValuesFromPatch(x);
    }
  }
}

function pruneNulls<T>(v: T): T {
  discardNullValuesFromPatch(v);
  return v;
}

export { PatchError };
