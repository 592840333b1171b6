/**
 * mongod of the official mongo image (docker.io/library/mongo), port 27017,
 * for the "Use Port Forwarding to Access Applications in a Cluster" page:
 * `kubectl port-forward ... 28015:27017`, then `mongosh --port 28015` and
 * `db.runCommand( { ping: 1 } )`, which answers `{ ok: 1 }`.
 *
 * It speaks the wire protocol a client's connection starts with: OP_QUERY
 * (the legacy `isMaster` handshake, answered by OP_REPLY) and OP_MSG (every
 * command since), with BSON bodies (bson.ts). It answers the handshake
 * (`hello`, `isMaster` with the image's wire version), `ping`, `buildInfo`
 * and the other commands a shell sends as it starts (`getLog`,
 * `getCmdLineOpts`, `hostInfo`, `listDatabases`, `connectionStatus`,
 * `endSessions`); any other command is mongod's CommandNotFound (code 59).
 * No data is stored: there are no collections to query (known-gaps.md).
 */
import type { Duplex } from 'node:stream';
import type { ImageListener, ListenerContext } from './listeners.js';
import { decodeBson, Double, encodeBson, type BsonDocument } from './bson.js';

const opReply = 1;
const opQuery = 2004;
const opMsg = 2013;
const moreToCome = 2;

/** The last release of each line the docs use, and its wire version (the driver's compatibility check). */
const releases: [line: string, version: string, wire: number][] = [
  ['4.2', '4.2.24', 8], ['4.4', '4.4.29', 9], ['5.0', '5.0.31', 13], ['6.0', '6.0.20', 17], ['7.0', '7.0.16', 21], ['8.0', '8.0.4', 25],
];

function release(tag: string): { version: string; wire: number } {
  const line = releases.find(([l]) => tag === l || tag.startsWith(`${l}.`) || tag.startsWith(`${l}-`));
  const [, version, wire] = line ?? releases[releases.length - 1];
  const exact = /^\d+\.\d+\.\d+/.exec(tag)?.[0];
  return { version: line && exact ? exact : version, wire };
}

let connections = 0;

export function mongoListener(tag: string): ImageListener {
  const { version, wire } = release(tag);
  return {
    ports: () => [27017],
    serve: (socket: Duplex, ctx: ListenerContext) => {
      const connectionId = ++connections;
      let pending = Buffer.alloc(0);
      socket.on('error', () => socket.destroy());
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 16 && pending.length >= pending.readInt32LE(0)) {
          const message = pending.subarray(0, pending.readInt32LE(0));
          pending = pending.subarray(message.length);
          const reply = handle(message, (cmd) => answer(cmd, { version, wire, connectionId, ctx }));
          if (reply) socket.write(reply);
        }
      });
    },
  };
}

/** The reply to one message, or undefined (moreToCome, or an opcode not answered). */
function handle(message: Buffer, run: (cmd: BsonDocument) => BsonDocument): Buffer | undefined {
  const requestID = message.readInt32LE(4);
  const opCode = message.readInt32LE(12);
  if (opCode === opQuery) {
    const nameEnd = message.indexOf(0, 20);
    const query = decodeBson(message, nameEnd + 1 + 8);
    const cmd = (query.$query && typeof query.$query === 'object' ? query.$query : query) as BsonDocument;
    const doc = encodeBson(run(cmd));
    const head = Buffer.alloc(36);
    head.writeInt32LE(36 + doc.length, 0);
    head.writeInt32LE(requestID, 8);
    head.writeInt32LE(opReply, 12);
    head.writeInt32LE(1, 32); // numberReturned; responseFlags, cursorID and startingFrom stay 0
    return Buffer.concat([head, doc]);
  }
  if (opCode !== opMsg) return undefined;
  const flags = message.readUInt32LE(16);
  const end = message.length - (flags & 1 ? 4 : 0);
  let body: BsonDocument = {};
  const sequences: [string, BsonDocument[]][] = [];
  for (let i = 20; i < end;) {
    const kind = message[i++];
    if (kind === 0) { body = decodeBson(message, i); i += message.readInt32LE(i); continue; }
    const size = message.readInt32LE(i);
    const idEnd = message.indexOf(0, i + 4);
    const docs: BsonDocument[] = [];
    for (let j = idEnd + 1; j < i + size; j += message.readInt32LE(j)) docs.push(decodeBson(message, j));
    sequences.push([message.toString('utf8', i + 4, idEnd), docs]);
    i += size;
  }
  for (const [id, docs] of sequences) body[id] = docs;
  const out = run(body);
  if (flags & moreToCome) return undefined;
  const doc = encodeBson(out);
  const head = Buffer.alloc(21);
  head.writeInt32LE(21 + doc.length, 0);
  head.writeInt32LE(requestID, 8);
  head.writeInt32LE(opMsg, 12);
  return Buffer.concat([head, doc]);
}

interface Server { version: string; wire: number; connectionId: number; ctx: ListenerContext }

const ok = new Double(1);

function answer(cmd: BsonDocument, s: Server): BsonDocument {
  const name = Object.keys(cmd)[0] ?? '';
  const now = s.ctx.now?.() ?? new Date();
  switch (name.toLowerCase()) {
    case 'hello':
    case 'ismaster':
      return {
        ...(name === 'hello' ? { isWritablePrimary: true } : { ismaster: true }), ...(cmd.helloOk ? { helloOk: true } : {}),
        maxBsonObjectSize: 16777216, maxMessageSizeBytes: 48000000, maxWriteBatchSize: 100000, localTime: now,
        logicalSessionTimeoutMinutes: 30, connectionId: s.connectionId, minWireVersion: 0, maxWireVersion: s.wire, readOnly: false, ok,
      };
    case 'ping': return { ok };
    case 'buildinfo': {
      const [major, minor, patch] = s.version.split('.').map(Number);
      return {
        version: s.version, gitVersion: '', modules: [], allocator: 'tcmalloc', javascriptEngine: 'mozjs', sysInfo: 'deprecated',
        versionArray: [major, minor, patch, 0], bits: 64, debug: false, maxBsonObjectSize: 16777216, storageEngines: ['devnull', 'wiredTiger'], ok,
      };
    }
    case 'getlog': return { totalLinesWritten: 0, log: [], ok };
    case 'getcmdlineopts': return { argv: ['mongod', '--bind_ip', '0.0.0.0'], parsed: { net: { bindIp: '0.0.0.0' } }, ok };
    case 'hostinfo':
      return {
        system: { currentTime: now, hostname: s.ctx.hostname, cpuAddrSize: 64, memSizeMB: 8192, numCores: 4, cpuArch: 'x86_64', numaEnabled: false },
        os: { type: 'Linux', name: 'Ubuntu', version: '18.04' }, extra: {}, ok,
      };
    case 'listdatabases': {
      const db = (n: string, size: number) => ({ name: n, sizeOnDisk: size, empty: false });
      return { databases: [db('admin', 40960), db('config', 12288), db('local', 40960)], totalSize: 94208, ok };
    }
    case 'connectionstatus': return { authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok };
    case 'endsessions': return { ok };
    default: return { ok: new Double(0), errmsg: `no such command: '${name}'`, code: 59, codeName: 'CommandNotFound' };
  }
}
