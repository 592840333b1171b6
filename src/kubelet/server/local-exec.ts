/**
 * An exec the kubelet serves itself, for a runtime that has no streaming
 * server (the process runtime: the command is a host process the kubelet
 * starts): the caller's WebSocket speaks v5.channel.k8s.io (kubectl 1.30+)
 * or v4.channel.k8s.io, as upstream's remotecommand server does:
 *
 *  - caller → command: channel 0 is stdin; the v5 close frame [255, 0] ends
 *    it (EOF); resize frames (4) are ignored (no terminal: `-t` runs the
 *    command without a pseudo-terminal).
 *  - command → caller: stdout on 1, stderr on 2, then the outcome on 3 as a
 *    metav1.Status (Success, or Failure with reason NonZeroExitCode and the
 *    exit code as an ExitCode cause, which kubectl turns into its own exit
 *    code), then a normal close.
 *  - The caller going away kills the command's process group.
 * SPDY callers are refused (kubectl falls back to SPDY only when the
 * WebSocket upgrade is refused, which this does not do).
 */
import type { ChildProcess } from 'node:child_process';
import { WebSocketServer, type RawData } from 'ws';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import type { StreamRequest } from '../runtime/runtime.js';
import type { UpgradeCall } from './runtime-stream.js';

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

export function serveLocalExec(call: UpgradeCall, protocols: string[], request: StreamRequest, start: () => ChildProcess): void {
  const protocol = channelProtocols.find((p) => protocols.includes(p));
  if (!protocol) return rejectUpgrade(call.socket, 400, `exec in this runtime needs a WebSocket speaking ${channelProtocols.join(' or ')}`);
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => protocol });
  wss.handleUpgrade(call.req, call.socket, call.head, (ws) => {
    const send = (channel: number, data: Buffer) => { if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data])); };
    const finish = (status: object) => {
      send(3, Buffer.from(JSON.stringify(status)));
      ws.close(1000);
    };
    let child: ChildProcess;
    try {
      child = start();
    } catch (e) {
      finish({ metadata: {}, status: 'Failure', message: (e as Error).message, reason: 'InternalError', code: 500 });
      return;
    }
    let done = false;
    child.once('error', (e) => { done = true; finish({ metadata: {}, status: 'Failure', message: e.message, reason: 'InternalError', code: 500 }); });
    if (!request.stdin) child.stdin?.end();
    child.stdin?.on('error', () => {});
    child.stdout?.on('data', (d: Buffer) => { if (request.stdout) send(1, d); });
    child.stderr?.on('data', (d: Buffer) => { if (request.stderr) send(request.tty ? 1 : 2, d); });
    child.once('close', (code, signal) => {
      if (done) return;
      done = true;
      finish(execStatus(request.cmd ?? [], code ?? 128 + (signal ? 9 : 0)));
    });
    ws.on('message', (data) => {
      const buf = asBuffer(data);
      if (buf[0] === 0 && request.stdin) child.stdin?.write(buf.subarray(1));
      else if (buf[0] === 255 && buf[1] === 0) child.stdin?.end();
    });
    ws.on('error', (e) => call.logger.debug('exec client stream failed', { pod: call.pod, err: e.message }));
    ws.on('close', () => {
      if (done || child.pid === undefined) return;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    });
    call.logger.debug('exec session started', { pod: call.pod, protocol, transport: 'local process' });
  });
}
