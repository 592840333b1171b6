/**
 * Drain a node as `kubectl drain NODE --ignore-daemonsets` does: cordon it,
 * list its pods, check them all (drain.ts) and, when none is refused, evict
 * each through the Eviction API so PodDisruptionBudgets decide. A 429 (the
 * budget allows no disruption now) is retried every 5 s, as kubectl does,
 * until it passes or the dialog is closed; an evicted pod is waited on until
 * it is gone. The log reads as kubectl's output.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Node, Pod } from 'kubernetes-types/core/v1';
import { api, ApiFailure, send } from './api.js';
import { drainCommand, planDrain, type DrainOptions } from './drain.js';

const retrySeconds = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function evictAndWait(p: Pod, live: () => boolean, say: (l: string) => void): Promise<void> {
  const ns = p.metadata!.namespace!; const name = p.metadata!.name!;
  const path = `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}`;
  say(`evicting pod ${ns}/${name}`);
  for (;;) {
    try {
      await send(`${path}/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: ns } });
      break;
    } catch (e) {
      const f = e as ApiFailure;
      if (f.code === 404) break;
      if (f.code !== 429) throw f;
      say(`error when evicting pods/"${name}" -n "${ns}" (will retry after ${retrySeconds}s): ${f.message}`);
      await sleep(retrySeconds * 1000);
      if (!live()) return;
    }
  }
  // Gone, or replaced by a pod of the same name (another uid): kubectl's waitForDelete, polling each second.
  while (live()) {
    try {
      const now = await api<Pod>(path);
      if (now.metadata?.uid !== p.metadata?.uid) break;
    } catch (e) {
      if ((e as ApiFailure).code === 404) break;
      throw e;
    }
    await sleep(1000);
  }
  if (live()) say(`pod/${name} evicted`);
}

export async function drain(node: Node, o: DrainOptions, live: () => boolean, say: (l: string) => void): Promise<boolean> {
  const name = node.metadata!.name!;
  if (!node.spec?.unschedulable) {
    await send(`/api/v1/nodes/${encodeURIComponent(name)}`, 'PATCH', { spec: { unschedulable: true } }, 'application/merge-patch+json');
  }
  say(`node/${name} cordoned`);
  const pods = await api<{ items: Pod[] }>(`/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${name}`)}`);
  const plan = planDrain(pods.items, o);
  if (plan.errors.length) {
    say(`error: unable to drain node "${name}" due to error: ${plan.errors.join(', ')}, continuing command...`);
    return false;
  }
  plan.warnings.forEach(say);
  await Promise.all(plan.evict.map((p) => evictAndWait(p, live, say)));
  if (!live()) return false;
  say(`node/${name} drained`);
  return true;
}

export function DrainDialog(props: { node: Node; onClose(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const live = useRef(true);
  const [o, setO] = useState<DrainOptions>({ force: false, deleteEmptyDirData: false });
  const [lines, setLines] = useState<string[]>([]);
  const [state, setState] = useState<'ask' | 'running' | 'done' | 'failed'>('ask');
  useEffect(() => { ref.current?.showModal(); return () => { live.current = false; }; }, []);
  const name = props.node.metadata!.name!;
  const say = (l: string) => { if (live.current) setLines((ls) => [...ls, l]); };
  const run = async () => {
    setState('running');
    setLines([]);
    try {
      setState(await drain(props.node, o, () => live.current, say) ? 'done' : 'failed');
    } catch (e) {
      say(`error: ${(e as ApiFailure).message}`);
      setState('failed');
    }
  };
  const close = () => { live.current = false; ref.current?.close(); };
  return (
    <dialog ref={ref} class="action" aria-label={`drain ${name}`} onClose={props.onClose}>
      <h2>Drain {name}</h2>
      <p>Cordon the node, then evict its pods through the Eviction API (PodDisruptionBudgets decide); DaemonSet pods stay.</p>
      <label><input type="checkbox" name="force" checked={o.force} disabled={state === 'running'} onChange={(e) => setO({ ...o, force: e.currentTarget.checked })} />
        --force (also pods no controller would recreate)</label>
      <label><input type="checkbox" name="delete-emptydir-data" checked={o.deleteEmptyDirData} disabled={state === 'running'}
        onChange={(e) => setO({ ...o, deleteEmptyDirData: e.currentTarget.checked })} /> --delete-emptydir-data</label>
      <p>Equivalent command:</p>
      <pre class="command">{drainCommand(name, o)}</pre>
      {lines.length > 0 && <pre class="logs drain-log" aria-label="drain output" role="log">{lines.join('\n')}</pre>}
      <div class="dialog-buttons">
        <button type="button" onClick={close}>{state === 'running' ? 'Stop' : 'Close'}</button>
        {state !== 'done' && <button type="button" class="confirm" disabled={state === 'running'} onClick={run}>{state === 'failed' ? 'Retry' : 'Confirm'}</button>}
      </div>
    </dialog>
  );
}
