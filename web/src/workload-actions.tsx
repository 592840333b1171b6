/**
 * A Deployment's or StatefulSet's actions in its panel: scale, rollout
 * restart, rollout undo (rollout.ts plans them as kubectl does). Each opens
 * a dialog with the equivalent kubectl command and waits for Confirm; the
 * buttons show only when a SelfSubjectAccessReview allows the write, and a
 * refusal anyway (403, 409) is shown in the API's words.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ControllerRevision, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1';
import { api, canI, send, type ApiFailure } from './api.js';
import {
  planUndo, resourceOf, restartCommand, restartPatch, revisionsOf, scaleCommand, scalePatch, undoCommand, workloadPath, type WorkloadKind,
} from './rollout.js';

type Action = 'scale' | 'restart' | 'undo';

export function WorkloadActions(props: { kind: WorkloadKind; namespace: string; name: string }) {
  const [may, setMay] = useState({ scale: false, patch: false });
  const [action, setAction] = useState<Action>();
  useEffect(() => {
    const r = resourceOf(props.kind);
    void Promise.all([canI('patch', r, props.namespace, { group: 'apps', subresource: 'scale' }), canI('patch', r, props.namespace, { group: 'apps' })])
      .then(([scale, patch]) => setMay({ scale, patch }));
  }, [props.kind, props.namespace]);
  return (
    <div class="workload-actions">
      {may.scale && <button type="button" onClick={() => setAction('scale')}>Scale…</button>}
      {may.patch && <button type="button" onClick={() => setAction('restart')}>Restart…</button>}
      {may.patch && <button type="button" onClick={() => setAction('undo')}>Undo rollout…</button>}
      {action && <WorkloadDialog {...props} action={action} onClose={() => setAction(undefined)} />}
    </div>
  );
}

type Workload = Deployment | StatefulSet;

async function undo(kind: WorkloadKind, ns: string, name: string, w: Workload): Promise<string> {
  const list = kind === 'Deployment'
    ? await api<{ items: ReplicaSet[] }>(`/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/replicasets`)
    : await api<{ items: ControllerRevision[] }>(`/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/controllerrevisions`);
  const plan = planUndo(kind, name, revisionsOf(kind, w.metadata!.uid!, list.items));
  if (!plan.ok) throw new Error(plan.message);
  await send(workloadPath(kind, ns, name), 'PATCH', plan.patch, 'application/json-patch+json');
  return `${kind.toLowerCase()}.apps/${name} rolled back`;
}

function WorkloadDialog(props: { kind: WorkloadKind; namespace: string; name: string; action: Action; onClose(): void }) {
  const { kind, namespace: ns, name, action } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const [w, setW] = useState<Workload>();
  const [replicas, setReplicas] = useState(0);
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    ref.current?.showModal();
    api<Workload>(workloadPath(kind, ns, name)).then((x) => { setW(x); setReplicas(x.spec?.replicas ?? 1); })
      .catch((e: ApiFailure) => setMessage({ ok: false, text: e.message }));
  }, []);
  const command = action === 'scale' ? scaleCommand(kind, ns, name, replicas) : action === 'restart' ? restartCommand(kind, ns, name) : undoCommand(kind, ns, name);
  const confirm = async () => {
    setBusy(true);
    try {
      const path = workloadPath(kind, ns, name);
      let done: string;
      if (action === 'scale') { await send(`${path}/scale`, 'PATCH', scalePatch(replicas), 'application/merge-patch+json'); done = `${kind.toLowerCase()}.apps/${name} scaled`; }
      else if (action === 'restart') { await send(path, 'PATCH', restartPatch(new Date()), 'application/strategic-merge-patch+json'); done = `${kind.toLowerCase()}.apps/${name} restarted`; }
      else done = await undo(kind, ns, name, w!);
      setMessage({ ok: true, text: done });
    } catch (e) {
      setMessage({ ok: false, text: (e as Error).message });
    }
    setBusy(false);
  };
  const title = { scale: 'Scale', restart: 'Restart', undo: 'Undo the rollout of' }[action];
  return (
    <dialog ref={ref} class="action" aria-label={`${action} ${kind} ${ns}/${name}`} onClose={props.onClose}>
      <h2>{title} {kind} {ns}/{name}</h2>
      {action === 'scale' && w && <p>Now {w.spec?.replicas ?? 1} replicas. <label>Replicas <input type="number" name="replicas" min={0} value={replicas}
        onInput={(e) => setReplicas(Math.max(0, Number(e.currentTarget.value) || 0))} /></label></p>}
      {action === 'undo' && <p>The revision before the current one becomes the pod template again (a new rollout).</p>}
      <p>Equivalent command:</p>
      <pre class="command">{command}</pre>
      {message && <p role={message.ok ? 'status' : 'alert'} class={message.ok ? 'applied' : 'error'}>{message.text}</p>}
      <div class="dialog-buttons">
        <button type="button" onClick={() => ref.current?.close()}>{message?.ok ? 'Close' : 'Cancel'}</button>
        {!message?.ok && <button type="button" class="confirm" disabled={!w || busy} onClick={confirm}>Confirm</button>}
      </div>
    </dialog>
  );
}
