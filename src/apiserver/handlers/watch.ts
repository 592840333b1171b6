/**
 * Watch streams: one JSON event per line, or length-prefixed protobuf
 * WatchEvent frames when the client prefers protobuf and the kind has it,
 * flushed as it happens. Tables when kubectl asked for them, bookmarks when
 * the client allows them, closed after timeoutSeconds or when the client goes away.
 */
import type { WatchEventOut } from '../../registry/types.js';
import type { Watch } from '../../registry/store.js';
import { objectJSON } from '../../registry/watch-cache/rendered-json.js';
import { parseResourceVersion, queryBool } from '../../api/list-options.js';
import { setLongTimeout, type LongTimeout } from '../../util/long-timeout.js';
import { includeObjectParam, partialObjectMetadata, toTable } from '../table.js';
import { HandlerContext, query } from './context.js';
import { clampToNumber, int64Param } from './params.js';
import { encodeObject, encodeWatchFrame, hasProtobuf, protobufWatchMediaType } from '../../api/protobuf/envelope.js';
import { cancelWatchFlush, scheduleWatchFlush } from './watch-flush.js';
import { chunkFrame, chunkSocket } from './watch-frame.js';

const bookmarkEveryMs = 30_000;

/**
 * The whole event of an object (a JSON line, or a protobuf frame), as bytes, built once for all
 * watchers of that encoding that send it with that type: per watcher only a reference is queued,
 * and neither the UTF-8 encoding nor the protobuf framing is repeated for each of them. Kept for one turn of the loop only (a write's event reaches every watcher in
 * the turn it is published), so no second copy of each cached object's text stays in memory.
 */
type LineType = 'ADDED' | 'MODIFIED' | 'DELETED';
type TurnLines = Record<LineType, Map<object, Buffer>>;
let turnLines: { json: TurnLines; protobuf: TurnLines } | undefined;
function turnLine(encoding: 'json' | 'protobuf', type: LineType, object: object): Buffer {
  if (turnLines === undefined) {
    const fresh = (): TurnLines => ({ ADDED: new Map(), MODIFIED: new Map(), DELETED: new Map() });
    turnLines = { json: fresh(), protobuf: fresh() };
    setImmediate(() => { turnLines = undefined; });
  }
  const lines = turnLines[encoding][type];
  let line = lines.get(object);
  if (line === undefined) {
    line = encoding === 'json'
      ? Buffer.from(`{"type":"${type}","object":${objectJSON(object)}}\n`)
      : encodeWatchFrame(type, objectProtobuf(object));
    // A watcher's replay of a whole list in one turn is not shared: it is not kept.
    if (lines.size < maxTurnLines) lines.set(object, line);
  }
  return line;
}
const maxTurnLines = 1000;
const lineTypes = new Set(['ADDED', 'MODIFIED', 'DELETED']);

/** The enveloped protobuf of a stored object, rendered once for all protobuf watchers. */
const renderedProtobuf = new WeakMap<object, Buffer>();
function objectProtobuf(object: object): Buffer {
  let buf = renderedProtobuf.get(object);
  if (buf === undefined) {
    buf = encodeObject(object)!;
    renderedProtobuf.set(object, buf);
  }
  return buf;
}

/** Events written but not yet taken by the client's socket, past which the watch is closed. */
const maxUnreadBytes = 32 * 1024 * 1024;

export async function handleWatch(ctx: HandlerContext): Promise<void> {
  const { res, store } = ctx;
  // Bad parameters are a 400 before the stream starts, as upstream's parameter codec answers.
  int64Param(ctx, 'limit');
  const timeoutSeconds = int64Param(ctx, 'timeoutSeconds');
  parseResourceVersion(query(ctx, 'resourceVersion'));
  const include = includeObjectParam(ctx.url.searchParams.get('includeObject'));
  let lastRV = '0';
  let open = true;
  // As upstream's watch handler: the stream is protobuf when the client prefers it and the kind has it.
  const protobuf = ctx.protobuf && ctx.rendering !== 'table' && hasProtobuf({ apiVersion: store.apiVersion, kind: store.info.kind });
  const renderProtobuf = (ev: WatchEventOut): Buffer => {
    let object = ev.object;
    if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return encodeWatchFrame(ev.type, encodeObject(object)!);
    if (ctx.rendering === 'partial') object = partialObjectMetadata(ev.object);
    else return turnLine('protobuf', ev.type as LineType, object);
    return encodeWatchFrame(ev.type, encodeObject(object)!);
  };
  const render = (ev: WatchEventOut): string | Buffer => {
    if (protobuf) return renderProtobuf(ev);
    let object = ev.object;
    if (ev.type !== 'ERROR' && ev.type !== 'BOOKMARK') {
      if (ctx.rendering === 'table') object = toTable(store, [ev.object], { resourceVersion: ev.object.metadata.resourceVersion }, include, new Date());
      else if (ctx.rendering === 'partial') object = partialObjectMetadata(ev.object);
      else if (lineTypes.has(ev.type)) return turnLine('json', ev.type as LineType, object);
      else return `{"type":"${ev.type}","object":${objectJSON(object)}}\n`;
    }
    return `{"type":"${ev.type}","object":${JSON.stringify(object)}}\n`;
  };
  // The events of a tick go out in one write (one chunk), not one write each (watch-flush.ts);
  // watchers sending the same events in a pass share that chunk (watch-frame.ts).
  let pending: Buffer[] = [];
  const writePending = () => {
    if (pending.length === 0) return;
    const parts = pending;
    pending = [];
    if (!open || res.destroyed) return;
    const socket = chunkSocket(res);
    if (socket) socket.write(chunkFrame(parts));
    else res.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    // A client that stopped reading must not make the server buffer its events without end:
    // upstream's cacher closes such a watcher ("Forcing watcher close due to unresponsiveness"),
    // and the client resumes from its last resourceVersion.
    if (res.writableLength > maxUnreadBytes) {
      ctx.logger.warn('closing an unresponsive watcher', { resource: store.info.plural, unreadBytes: res.writableLength });
      stop();
      res.destroy();
    }
  };
  const flushTarget = { writePending };
  const send = (ev: WatchEventOut) => {
    if (!open) return;
    if (ev.object?.metadata?.resourceVersion && ev.type !== 'ERROR') lastRV = ev.object.metadata.resourceVersion;
    if (pending.length === 0) scheduleWatchFlush(flushTarget);
    const line = render(ev);
    pending.push(typeof line === 'string' ? Buffer.from(line) : line);
  };
  const timers: LongTimeout[] = [];
  let watch: Watch | undefined;
  const stop = () => {
    open = false;
    cancelWatchFlush(flushTarget);
    for (const t of timers) t.cancel();
    watch?.close();
    ctx.watchGauge.dec();
  };
  const finish = () => {
    if (!open) return;
    writePending();
    if (!open) return;
    stop();
    res.end();
  };
  ctx.watchGauge.inc();
  res.writeHead(200, { 'Content-Type': protobuf ? protobufWatchMediaType : 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  ctx.req.socket.setNoDelay(true);
  ctx.req.on('close', finish);
  res.on('close', finish);
  try {
    watch = await store.watch(ctx.info.namespace, {
      labelSelector: query(ctx, 'labelSelector'), fieldSelector: query(ctx, 'fieldSelector'),
      resourceVersion: query(ctx, 'resourceVersion'),
      sendInitialEvents: queryBool(query(ctx, 'sendInitialEvents')) ? true : undefined,
    }, send, () => finish());
  } catch (e: any) {
    if (e?.status) send({ type: 'ERROR', object: e.status });
    finish();
    return;
  }
  if (!open) { watch.close(); return; }
  // Before any event, a bookmark may claim the revision the watch started from.
  if (Number(lastRV) < watch.startRevision) lastRV = String(watch.startRevision);
  if (queryBool(query(ctx, 'sendInitialEvents')) && queryBool(query(ctx, 'allowWatchBookmarks'))) {
    // The end of the initial events, as the WatchList protocol marks it.
    send({ type: 'BOOKMARK', object: bookmark(store, lastRV, true) });
  }
  // 0 (or none) means no limit. Upstream turns a negative timeout into a timer that has
  // already fired, so such a watch ends at once; a huge one is just very long (setLongTimeout).
  if (timeoutSeconds !== undefined && timeoutSeconds !== 0n) timers.push(setLongTimeout(finish, clampToNumber(timeoutSeconds) * 1000));
  if (queryBool(query(ctx, 'allowWatchBookmarks'))) {
    // One slot, re-armed: a watch that lives for days keeps one bookmark timer, not one per tick.
    const slot = timers.length;
    // From the watch cache a bookmark claims the cache's revision (upstream's cacher: the last
    // revision it processed), so an idle watcher's resume point still moves forward.
    const claim = () => String(Math.max(Number(lastRV), watch?.progress?.() ?? 0));
    const tick = () => { send({ type: 'BOOKMARK', object: bookmark(store, claim(), false) }); timers[slot] = setLongTimeout(tick, bookmarkEveryMs); };
    timers[slot] = setLongTimeout(tick, bookmarkEveryMs);
  }
}

function bookmark(store: HandlerContext['store'], rv: string, initialEnd: boolean): any {
  const metadata: any = { resourceVersion: rv };
  if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { kind: store.info.kind, apiVersion: store.apiVersion, metadata };
}
