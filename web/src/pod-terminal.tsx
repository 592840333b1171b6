/**
 * A pod's exec terminal in its details: `kubectl exec -it POD -c C -- sh` in
 * the page. Offered when a SelfSubjectAccessReview allows create on
 * pods/exec in the pod's namespace (what kubectl exec needs); the terminal
 * (terminal-view.ts, xterm.js) is loaded only when opened. The outcome is
 * shown under it: the exit code, or the API's words for a refusal (a 403,
 * a simulated node that runs no processes).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Pod } from 'kubernetes-types/core/v1';
import { canI } from './api.js';
import { execCommand, type ExecOutcome, type ExecTarget } from './exec-stream.js';

export function PodTerminal(props: { pod: Pod }) {
  const ns = props.pod.metadata!.namespace!;
  const name = props.pod.metadata!.name!;
  const containers = (props.pod.spec?.containers ?? []).map((c) => c.name);
  const [container, setContainer] = useState(containers[0] ?? '');
  const [may, setMay] = useState(false);
  const [open, setOpen] = useState(0);
  useEffect(() => { void canI('create', 'pods', ns, { subresource: 'exec' }).then(setMay); }, [ns]);
  if (!may || !container) return null;
  const target: ExecTarget = { namespace: ns, pod: name, container, command: ['sh'] };
  return (
    <section aria-label="terminal">
      <h3>Terminal{containers.length > 1 && (
        <select aria-label="terminal container" value={container} onChange={(e) => { setOpen(0); setContainer((e.target as HTMLSelectElement).value); }}>
          {containers.map((c) => <option key={c} value={c}>{c}</option>)}
        </select>
      )}</h3>
      <p class="command">{execCommand(target)}</p>
      {open === 0
        ? <button type="button" onClick={() => setOpen(1)}>Open terminal</button>
        : <TerminalPane key={`${container}/${open}`} target={target} onAgain={() => setOpen(open + 1)} onClose={() => setOpen(0)} />}
    </section>
  );
}

function TerminalPane(props: { target: ExecTarget; onAgain(): void; onClose(): void }) {
  const ref = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<{ connected: boolean; outcome?: ExecOutcome }>({ connected: false });
  const [loadError, setLoadError] = useState<string>();
  useEffect(() => {
    let handle: { close(): void } | undefined;
    let live = true;
    import('./terminal-view.js').then((m) => {
      if (live) handle = m.mountTerminal(ref.current!, props.target, (s) => { if (live) setState(s); });
    }, (e) => setLoadError(String(e)));
    return () => { live = false; handle?.close(); };
  }, []);
  const { outcome } = state;
  return (
    <div class="terminal-pane">
      <div ref={ref} class="exec-terminal" data-connected={state.connected ? 'true' : 'false'} />
      {loadError && <p role="alert" class="error">{loadError}</p>}
      {outcome && <p role={outcome.ok ? 'status' : 'alert'} class={outcome.ok ? 'applied' : 'error'} data-exec-outcome>{outcome.message}</p>}
      <div class="dialog-buttons">
        {outcome && <button type="button" onClick={props.onAgain}>Open again</button>}
        <button type="button" onClick={props.onClose}>Close terminal</button>
      </div>
    </div>
  );
}
