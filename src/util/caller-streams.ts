/**
 * Frames for an exec or attach caller, held until the caller can take them.
 *
 * kubectl 1.32's WebSocket client (client-go remotecommand/websocket.go)
 * starts reading the connection as soon as the upgrade is answered, while
 * another goroutine is still creating its streams: a frame for a stream it
 * has not created yet is dropped (`Unknown stream id 1, discarding
 * message`). client-go later made its reader wait for the streams
 * (readyChan); 1.32 does not. Output the runtime has at connect (an
 * attach's replay or redraw of the shell's prompt, an exec's first prompt)
 * would then be lost, and `kubectl run -it` / `attach -it` / `debug -it`
 * show no prompt. So the kubelet holds the caller's frames until:
 *
 *  1. with a tty, the caller's first resize message: kubectl sends its
 *     terminal's size only after it has created every stream (and a real
 *     shell redraws its prompt on that SIGWINCH, as busybox's does);
 *  2. otherwise, or when no resize comes (a client without a size queue),
 *     a settle time after the upgrade: `plainSettleMs`, or `ttySettleMs`
 *     for a tty.
 *
 * The frames keep their order; the end of the session (the status frame
 * and the close) waits for them too.
 */

/** A caller without a tty sends nothing that says its streams exist: its output waits this long after the upgrade. */
export const plainSettleMs = 100;
/** A tty caller that sends no resize (kubectl always does) gets its output after this long. */
export const ttySettleMs = 1000;

export class CallerStreamsGate {
  private held: [number, Buffer][] | undefined = [];
  private afterOpen: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly send: (channel: number, data: Buffer) => void, tty: boolean) {
    this.timer = setTimeout(() => this.open(), tty ? ttySettleMs : plainSettleMs);
  }

  /** A frame for the caller: sent now when its streams exist, else when they do. */
  write(channel: number, data: Buffer): void {
    if (this.held) this.held.push([channel, data]);
    else this.send(channel, data);
  }

  /** Runs `fn` once every held frame has been sent (closing the connection, say). */
  whenOpen(fn: () => void): void {
    if (this.held) this.afterOpen.push(fn);
    else fn();
  }

  /** The caller's streams exist (its first resize came, or the settle time passed): send what was held. */
  open(): void {
    clearTimeout(this.timer);
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    for (const [channel, data] of held) this.send(channel, data);
    for (const fn of this.afterOpen.splice(0)) fn();
  }

  /** The caller went away: nothing more is sent. */
  close(): void {
    clearTimeout(this.timer);
    this.held = undefined;
    this.afterOpen = [];
  }
}
