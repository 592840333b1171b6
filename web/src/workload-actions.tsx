/**
 * A Deployment's or StatefulSet's actions in its panel: scale, rollout
 * restart, rollout undo (to the previous revision or one chosen from the
 * history), and a Deployment's rollout pause/resume (rollout.ts plans them
 * as kubectl does). Each opens a dialog with the equivalent kubectl command
 * and waits for Confirm; the buttons show only when a
 * SelfSubjectAccessReview allows the write, and a refusal anyway (403, 409)
 * is shown in the API's words.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ControllerRevision, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1';
import { api, canI, send, type ApiFailure } from './api.js';
import {
  pauseCommand, planPause, planUndo, resourceOf, restartCommand, restartPatch, revisionsOf, scaleCommand, scalePatch, undoCommand, workloadPath,
  type Revision, type WorkloadKind,
} from './rollout.js';

type Action = 'scale' | 'restart' | 'undo' | 'pause' | 'resume';
type Workload = Deployment | StatefulSet;

export function WorkloadActions(props: { kind: WorkloadKind; namespace: string; name: string }) {
  const [may, setMay] = useState({ scale: false, patch: false });
  const [action, setAction] = useState<Action>();
  const [paused, setPaused] = useState<boolean>();
  const [closed, setClosed] = useState(0);
  useEffect(() => {
    const r = resourceOf(props.kind);
    void Promise.all([canI('patch', r, props.namespace, { group: 'apps', subresource: 'scale' }), canI('patch', r, props.namespace, { group: 'apps' })])
      .then(([scale, patch]) => setMay({ scale, patch }));
  }, [props.kind, props.namespace]);
  useEffect(() => {
    // Pause or Resume is offered as the Deployment is now (read again after each dialog).
    if (props.kind !== 'Deployment') return;
    api<Deployment>(workloadPath(props.kind, props.namespace, props.name)).then((d) => setPaused(!!d.spec?.paused), () => setPaused(undefined));
  }, [props.kind, props.namespace, props.name, closed]);
  return (
    <div class="workload-actions">
      {may.scale && <button type="button" onClick={() => setAction('scale')}>Scale…</button>}
      {may.patch && <button type="button" onClick={() => setAction('restart')}>Restart…</button>}
      {may.patch && <button type="button" onClick={() => setAction('undo')}>Undo rollout…</button>}
      {may.patch && paused === false && <button type="button" onClick={() => setAction('pause')}>Pause rollout…</button>}
      {may.patch && paused === true && <button type="button" onClick={() => setAction('resume')}>Resume rollout…</button>}
      {action && <WorkloadDialog {...props} action={action} onClose={() => { setAction(undefined); setClosed(closed + 1); }} />}
    </div>
  );
}

/** The workload's revisions, newest first (a Deployment's ReplicaSets, a StatefulSet's ControllerRevisions). */
async function history(kind: WorkloadKind, ns: string, w: Workload): Promise<Revision[]> {
  const list = kind === 'Deployment'
    ? await api<{ items: ReplicaSet[] }>(`/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/replicasets`)
    : await api<{ items: ControllerRevision[] }>(`/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/controllerrevisions`);
  return revisionsOf(kind, w.metadata!.uid!, list.items);
}

async function undo(kind: WorkloadKind, ns: string, name: string, w: Workload, toRevision: number): Promise<string> {
  const plan = planUndo(kind, name, await history(kind, ns, w), toRevision, kind === 'Deployment' && !!(w as Deployment).spec?.paused);
  if (plan.ok === false) throw new Error(plan.message);
  if (plan.ok === 'skipped') return plan.message;
  await send(workloadPath(kind, ns, name), 'PATCH', plan.patch, 'application/json-patch+json');
  return `${kind.toLowerCase()}.apps/${name} rolled back`;
}

async function pauseOrResume(pause: boolean, ns: string, name: string, w: Workload): Promise<string> {
  const plan = planPause(pause, name, !!(w as Deployment).spec?.paused);
  if (!plan.ok) throw new Error(plan.message);
  await send(workloadPath('Deployment', ns, name), 'PATCH', plan.patch, 'application/merge-patch+json');
  return plan.done;
}

/** `kubectl rollout history`'s table, each row a choice for `--to-revision` (0: the previous one, kubectl's default). */
function HistoryChoice(props: { revisions: Revision[]; chosen: number; onChoose(n: number): void }) {
  return (
    <fieldset class="history">
      <legend>Roll back to</legend>
      <label><input type="radio" name="revision" value="0" checked={props.chosen === 0} onChange={() => props.onChoose(0)} /> the previous revision</label>
      <table class="object-list">
        <thead><tr><th scope="col">REVISION</th><th scope="col">CHANGE-CAUSE</th></tr></thead>
        <tbody>
          {[...props.revisions].reverse().map((r, i, all) => (
            <tr key={r.revision} data-revision={r.revision}>
              <td><label><input type="radio" name="revision" value={String(r.revision)} checked={props.chosen === r.revision} onChange={() => props.onChoose(r.revision)} />
                {' '}{r.revision}{i === all.length - 1 ? ' (current)' : ''}</label></td>
              <td>{r.changeCause ?? '<none>'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </fieldset>
  );
}

function WorkloadDialog(props: { kind: WorkloadKind; namespace: string; name: string; action: Action; onClose(): void }) {
  const { kind, namespace: ns, name, action } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const [w, setW] = useState<Workload>();
  const [replicas, setReplicas] = useState(0);
  const [revisions, setRevisions] = useState<Revision[]>();
  const [toRevision, setToRevision] = useState(0);
  const [message, setMessage] = useState<{ ok: boolean; text: string }>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    ref.current?.showModal();
    api<Workload>(workloadPath(kind, ns, name)).then(async (x) => {
      setReplicas(x.spec?.replicas ?? 1);
      if (action === 'undo') setRevisions(await history(kind, ns, x));
      setW(x);
    }).catch((e: ApiFailure) => setMessage({ ok: false, text: e.message }));
  }, []);
  const command = {
    scale: () => scaleCommand(kind, ns, name, replicas), restart: () => restartCommand(kind, ns, name), undo: () => undoCommand(kind, ns, name, toRevision),
    pause: () => pauseCommand(true, ns, name), resume: () => pauseCommand(false, ns, name),
  }[action]();
  const confirm = async () => {
    setBusy(true);
    try {
      const path = workloadPath(kind, ns, name);
      let done: string;
      if (action === 'scale') { await send(`${path}/scale`, 'PATCH', scalePatch(replicas), 'application/merge-patch+json'); done = `${kind.toLowerCase()}.apps/${name} scaled`; }
      else if (action === 'restart') { await send(path, 'PATCH', restartPatch(new Date()), 'application/strategic-merge-patch+json'); done = `${kind.toLowerCase()}.apps/${name} restarted`; }
      else if (action === 'undo') done = await undo(kind, ns, name, w!, toRevision);
      else done = await pauseOrResume(action === 'pause', ns, name, w!);
      setMessage({ ok: true, text: done });
    } catch (e) {
      setMessage({ ok: false, text: (e as Error).message });
    }
    setBusy(false);
  };
  const title = { scale: 'Scale', restart: 'Restart', undo: 'Undo the rollout of', pause: 'Pause the rollout of', resume: 'Resume the rollout of' }[action];
  return (
    <dialog ref={ref} class="action" aria-label={`${action} ${kind} ${ns}/${name}`} onClose={props.onClose}>
      <h2>{title} {kind} {ns}/{name}</h2>
      {action === 'scale' && w && <p>Now {w.spec?.replicas ?? 1} replicas. <label>Replicas <input type="number" name="replicas" min={0} value={replicas}
        onInput={(e) => setReplicas(Math.max(0, Number(e.currentTarget.value) || 0))} /></label></p>}
      {action === 'undo' && <p>The chosen revision's pod template becomes the template again (a new rollout).</p>}
      {action === 'undo' && revisions && <HistoryChoice revisions={revisions} chosen={toRevision} onChoose={setToRevision} />}
      {action === 'pause' && <p>Changes to the pod template start no rollout until it is resumed.</p>}
      {action === 'resume' && <p>A template changed while paused rolls out now.</p>}
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
