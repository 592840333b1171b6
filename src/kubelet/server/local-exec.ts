/**
 * An exec or attach the kubelet serves itself, for a runtime that has no
 * streaming server (the process runtime: the command is a host process the
 * kubelet starts, runtime.ts LocalStream): the caller's WebSocket speaks
 * v5.channel.k8s.io (kubectl 1.30+) or v4.channel.k8s.io, as upstream's
 * remotecommand server does:
 *
 *  - caller → command: channel 0 is stdin; the v5 close frame [255, 0] ends
 *    it (EOF); with a tty, channel 4 carries terminal sizes
 *    (`{"Width":..,"Height":..}`).
 *  - command → caller: stdout on 1, stderr on 2, then the outcome on 3 as a
 *    metav1.Status (Success, or Failure with reason NonZeroExitCode and the
 *    exit code as an ExitCode cause, which kubectl turns into its own exit
 *    code), then a normal close.
 *    An attach ends with Success when the container ends.
 *  - The caller going away kills an exec's command; an attach detaches.
 * SPDY callers are refused (kubectl falls back to SPDY only when the
 * WebSocket upgrade is refused, which this does not do).
 */
import { finished, type Readable } from 'node:stream';
import type { RawData } from 'ws';
import { ws } from '../../util/ws.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import type { LocalStream, StreamRequest } from '../runtime/runtime.js';
import type { UpgradeCall } from './runtime-stream.js';
import { CallerStreamsGate } from '../../util/caller-streams.js';

const channelProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
const asBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

/** The exec's outcome as upstream's remotecommand writes it on the error channel. */
export function execStatus(cmd: string[], exitCode: number): object {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {}, status: 'Failure', reason: 'NonZeroExitCode',
    message: `command terminated with non-zero exit code: error executing command [${cmd.join(' ')}], exit code ${exitCode}`,
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** A resize message on channel 4: `{"Width":80,"Height":24}` (remotecommand.TerminalSize). */
export function terminalSize(data: Buffer): { cols: number; rows: number } | undefined {
  try {
    const { Width, Height } = JSON.parse(data.toString('utf8')) as { Width?: unknown; Height?: unknown };
    return typeof Width === 'number' && typeof Height === 'number' && Width > 0 && Height > 0 ? { cols: Width, rows: Height } : undefined;
  } catch { return undefined; }
}

const ended = (s: Readable | undefined) => (s && !s.readableEnded ? new Promise<void>((r) => finished(s, () => r())) : Promise.resolve());

export function serveLocalExec(call: UpgradeCall, protocols: string[], request: StreamRequest, open: () => LocalStream): void {
  const protocol = channelProtocols.find((p) => protocols.includes(p));
  if (!protocol) return rejectUpgrade(call.socket, 400, `${call.what} in this runtime needs a WebSocket speaking ${channelProtocols.join(' or ')}`);
  const wss = new (ws().WebSocketServer)({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => protocol });
  wss.handleUpgrade(call.req, call.socket, call.head, (ws) => {
    // Output waits until the caller has created its streams (util/caller-streams.ts: kubectl 1.32 drops frames that come before).
    const gate = new CallerStreamsGate((channel, data) => { if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data])); }, request.tty);
    const send = (channel: number, data: Buffer) => gate.write(channel, data);
    const finish = (status: object) => {
      send(3, Buffer.from(JSON.stringify(status)));
      gate.whenOpen(() => ws.close(1000));
    };
    const failure = (e: unknown) => ({ metadata: {}, status: 'Failure', message: (e as Error).message, reason: 'InternalError', code: 500 });
    let stream: LocalStream;
    try {
      stream = open();
    } catch (e) {
      finish(failure(e));
      return;
    }
    let done = false;
    const { stdin, stdout, stderr } = stream;
    if (!request.stdin) stdin?.end();
    stdin?.on('error', () => {});
    stdout.on('data', (d: Buffer) => { if (request.stdout) send(1, d); });
    stderr?.on('data', (d: Buffer) => { if (request.stderr) send(request.tty ? 1 : 2, d); });
    stream.done.then(
      async (code) => {
        await Promise.all([ended(stdout), ended(stderr)]);
        if (!done) finish(execStatus(request.cmd ?? [], code));
        done = true;
      },
      (e) => { if (!done) finish(failure(e)); done = true; },
    );
    ws.on('message', (data) => {
      const buf = asBuffer(data);
      if (buf[0] === 0 && request.stdin) stdin?.write(buf.subarray(1));
      else if (buf[0] === 4 && request.tty) {
        const size = terminalSize(buf.subarray(1));
        if (size) stream.resize?.(size.cols, size.rows);
        gate.open();
      } else if (buf[0] === 255 && buf[1] === 0) stdin?.end();
    });
    ws.on('error', (e) => call.logger.debug(`${call.what} client stream failed`, { pod: call.pod, err: e.message }));
    ws.on('close', () => { gate.close(); if (!done) stream.close(); });
    call.logger.debug(`${call.what} session started`, { pod: call.pod, protocol, transport: 'local', tty: request.tty });
  });
}
