/**
 * A large answer the heavy lane encoded stays in the worker; the loop pulls
 * it over a MessagePort one slice at a time, writing each to the socket
 * before it asks for the next.
 *
 * Why: handing the whole answer over (the 1,000,000-container Pod's 422 is
 * about 430 MB) adds that much external memory to the loop's heap at once,
 * and V8 answers such growth with a full collection of that heap on the loop:
 * measured at 1.5 s on a loaded machine, every client waiting (a bystander's
 * GET answered after 1.1 to 2.2 s). Pulled, the loop never holds more than a
 * slice or two of it, which the young generation's collections free.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';

/** Answers from this size on are pulled; smaller ones are handed over whole. */
export const pulledBytesFrom = 8 << 20;

/** A slice of a pulled answer. */
const sliceBytes = 1 << 20;

/** What the loop receives in place of the bytes: their length and the port to pull them through. */
export interface PulledBytes { length: number; port: MessagePort }

/**
 * In the worker: serves `parts` slice by slice on a new channel and returns
 * its other end, to be transferred to the loop. Each slice is a copy with
 * memory of its own (transferred, not cloned); the parts are dropped when
 * the last slice is taken or the loop closes the port (the client left).
 */
export function servePulledBytes(parts: Uint8Array[]): PulledBytes {
  const { port1, port2 } = new MessageChannel();
  let length = 0;
  for (const p of parts) length += p.byteLength;
  let part = 0;
  let at = 0;
  port1.on('message', () => {
    if (part >= parts.length) return void port1.close();
    const p = parts[part];
    const end = Math.min(at + sliceBytes, p.byteLength);
    const slice = new Uint8Array(end - at);
    slice.set(p.subarray(at, end));
    at = end;
    if (at >= p.byteLength) { part++; at = 0; }
    port1.postMessage(slice, [slice.buffer]);
    // The loop closes its end after the last slice (a close here could overtake it).
    if (part >= parts.length) parts.length = 0;
  });
  port1.on('close', () => { parts.length = 0; });
  return { length, port: port2 };
}

/**
 * On the loop: the next slice, or undefined when the worker closed the port
 * (the answer is complete, or the worker is gone).
 */
export function pullSlice(port: MessagePort): Promise<Uint8Array | undefined> {
  return new Promise((resolve) => {
    const onMessage = (slice: Uint8Array) => { port.off('close', onClose); resolve(slice); };
    const onClose = () => { port.off('message', onMessage); resolve(undefined); };
    port.once('message', onMessage);
    port.once('close', onClose);
    port.postMessage('next');
  });
}
