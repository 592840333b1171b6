/**
 * The terminal itself: xterm.js (with its fit addon) in an element, wired to
 * an exec session. This module is loaded with import() when a terminal is
 * opened, so xterm (~300 KB minified) is its own chunk and the first load
 * does not carry it. Its stylesheet (copied to dist/web by bundle-web.mjs)
 * is linked at the same time.
 */
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { openExec, type ExecOutcome, type ExecTarget } from './exec-stream.js';

export interface TerminalHandle { close(): void }

function linkStylesheet(): void {
  if (document.querySelector('link[data-xterm]')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = 'xterm.css';
  link.dataset.xterm = '';
  document.head.append(link);
}

/** A terminal in `el` running `t`; `onState` hears when it is connected and how it ended. */
export function mountTerminal(el: HTMLElement, t: ExecTarget, onState: (s: { connected: boolean; outcome?: ExecOutcome }) => void): TerminalHandle {
  linkStylesheet();
  const term = new Terminal({ convertEol: false, cursorBlink: true, fontSize: 13, scrollback: 2000 });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(el);
  const session = openExec(t, {
    onOpen: () => {
      onState({ connected: true });
      fit.fit();
      el.dataset.size = `${term.rows} ${term.cols}`;
      session.resize(term.cols, term.rows);
      term.focus();
    },
    onOutput: (bytes) => term.write(bytes),
    onEnd: (outcome) => { onState({ connected: false, outcome }); term.options.disableStdin = true; },
  });
  const input = term.onData((d) => session.input(d));
  // The size the command was told, as `stty size` prints it (rows cols): for the tests, and for the curious.
  const resized = term.onResize(({ cols, rows }) => { el.dataset.size = `${rows} ${cols}`; session.resize(cols, rows); });
  // The panel can change size (window, fonts): the terminal follows it, and the command hears SIGWINCH.
  const observer = new ResizeObserver(() => { try { fit.fit(); } catch { /* detached */ } });
  observer.observe(el);
  return {
    close: () => {
      observer.disconnect();
      input.dispose();
      resized.dispose();
      session.close();
      term.dispose();
    },
  };
}
