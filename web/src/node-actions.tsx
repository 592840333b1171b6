/**
 * Taint/untaint, cordon/uncordon, delete (and drain: drain-dialog.tsx), each
 * behind a confirmation that shows the kubectl command doing the same. The patch is a JSON merge patch with
 * the node's resourceVersion, so a change made meanwhile is a 409 Conflict
 * (shown) rather than lost.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Node, Taint } from 'kubernetes-types/core/v1';
import { send, type ApiFailure } from './api.js';
import { taintText } from './model.js';
import { DrainDialog } from './drain-dialog.js';

export type NodeAction =
  | { kind: 'taint'; node: Node }
  | { kind: 'untaint'; node: Node; taint: Taint }
  | { kind: 'cordon' | 'uncordon' | 'delete'; node: Node }
  | { kind: 'drain'; node: Node };

const effects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

function plan(a: Exclude<NodeAction, { kind: 'drain' }>, t: Taint): { command: string; patch?: object } {
  const name = a.node.metadata!.name!;
  const rv = a.node.metadata!.resourceVersion;
  const taints = a.node.spec?.taints ?? [];
  switch (a.kind) {
    case 'delete': return { command: `kubectl delete node ${name}` };
    case 'cordon': return { command: `kubectl cordon ${name}`, patch: { metadata: { resourceVersion: rv }, spec: { unschedulable: true } } };
    case 'uncordon': return { command: `kubectl uncordon ${name}`, patch: { metadata: { resourceVersion: rv }, spec: { unschedulable: null } } };
    case 'untaint': {
      const rest = taints.filter((x) => !(x.key === a.taint.key && x.effect === a.taint.effect));
      return { command: `kubectl taint nodes ${name} ${a.taint.key}:${a.taint.effect}-`, patch: { metadata: { resourceVersion: rv }, spec: { taints: rest } } };
    }
    case 'taint': {
      const added: Taint = { key: t.key, effect: t.effect, ...(t.value ? { value: t.value } : {}), ...(t.effect === 'NoExecute' ? { timeAdded: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } : {}) };
      const rest = taints.filter((x) => !(x.key === t.key && x.effect === t.effect));
      return { command: `kubectl taint nodes ${name} ${taintText(t)}`, patch: { metadata: { resourceVersion: rv }, spec: { taints: [...rest, added] } } };
    }
  }
}

export function NodeActionDialog(props: { action: NodeAction; onClose(): void }) {
  const a = props.action;
  if (a.kind === 'drain') return <DrainDialog node={a.node} onClose={props.onClose} />;
  return <ConfirmDialog action={a} onClose={props.onClose} />;
}

function ConfirmDialog(props: { action: Exclude<NodeAction, { kind: 'drain' }>; onClose(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [taint, setTaint] = useState<Taint>({ key: '', value: '', effect: 'NoSchedule' });
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => { ref.current?.showModal(); }, []);
  const a = props.action;
  const name = a.node.metadata!.name!;
  const ready = a.kind !== 'taint' || !!taint.key;
  const { command, patch } = plan(a, taint);
  const confirm = async () => {
    setBusy(true);
    try {
      const path = `/api/v1/nodes/${encodeURIComponent(name)}`;
      // Delete carries the node's uid as precondition: a node re-registered meanwhile under the same name is not the one confirmed.
      if (a.kind === 'delete') await send(path, 'DELETE', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: a.node.metadata!.uid } });
      else await send(path, 'PATCH', patch, 'application/merge-patch+json');
      props.onClose();
    } catch (e) {
      setError((e as ApiFailure).message);
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} class="action" aria-label={`${a.kind} ${name}`} onClose={props.onClose}>
      <h2>{a.kind === 'taint' ? `Taint ${name}` : a.kind === 'untaint' ? `Remove taint ${taintText(a.taint)} from ${name}` : `${{ cordon: 'Cordon', uncordon: 'Uncordon', delete: 'Delete node' }[a.kind]} ${name}`}</h2>
      {a.kind === 'delete' && <p>The node object goes; its pods are then deleted by the garbage collector (their kubelet, if any, registers the node again).</p>}
      {a.kind === 'taint' && (
        <div class="taint-form">
          <label>Key <input name="key" value={taint.key} onInput={(e) => setTaint({ ...taint, key: e.currentTarget.value })} /></label>
          <label>Value <input name="value" value={taint.value} onInput={(e) => setTaint({ ...taint, value: e.currentTarget.value })} /></label>
          <label>Effect <select name="effect" value={taint.effect} onChange={(e) => setTaint({ ...taint, effect: e.currentTarget.value })}>
            {effects.map((x) => <option key={x} value={x}>{x}</option>)}
          </select></label>
        </div>
      )}
      <p>Equivalent command:</p>
      <pre class="command">{command}</pre>
      {error && <p role="alert" class="error">{error}</p>}
      <div class="dialog-buttons">
        <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
        <button type="button" class="confirm" disabled={!ready || busy} onClick={confirm}>Confirm</button>
      </div>
    </dialog>
  );
}
