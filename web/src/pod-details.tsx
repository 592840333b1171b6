/**
 * The selected pod: each node's placement verdicts (the dashboard's
 * placement API, the scheduler's own filters) and the pod's events as a
 * timeline (core/v1 events for that pod, oldest first, live from a watch),
 * its log and an exec terminal.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Event, Pod } from 'kubernetes-types/core/v1';
import { api, ApiFailure } from './api.js';
import { useCollection } from './use-collection.js';
import { podState } from './model.js';
import { PodLogs } from './pod-logs.js';
import { PodTerminal } from './pod-terminal.js';
import { WorkloadActions } from './workload-actions.js';

interface FilterVerdict { filter: string; verdict: 'Pass' | 'Fail' | 'Skip' | 'Error'; reasons: string[] }
interface Placement { pod: { nodeName?: string }; nodes: { node: string; fits: boolean; filters: FilterVerdict[] }[] }

export function PodDetails(props: { pod: Pod; onClose(): void }) {
  const { pod } = props;
  const ns = pod.metadata!.namespace!;
  const name = pod.metadata!.name!;
  return (
    <aside class="details" aria-label={`pod ${ns}/${name}`}>
      <div class="details-head">
        <h2>{ns}/{name}</h2>
        <button type="button" onClick={props.onClose}>Close</button>
      </div>
      <p>{podState(pod)} · {pod.spec?.nodeName ? `on ${pod.spec.nodeName}` : 'not scheduled'}</p>
      <PlacementTable namespace={ns} name={name} version={pod.metadata?.resourceVersion ?? ''} />
      <Timeline kind="Pod" namespace={ns} name={name} />
      {pod.spec?.nodeName && <PodLogs pod={pod} />}
      {pod.spec?.nodeName && <PodTerminal key={`${ns}/${name}`} pod={pod} />}
    </aside>
  );
}

/** A controller (StatefulSet, DaemonSet, ...) selected from its group's heading: its own events, in order. */
export function OwnerDetails(props: { kind: string; namespace: string; name: string; onClose(): void }) {
  return (
    <aside class="details" aria-label={`${props.kind} ${props.namespace}/${props.name}`}>
      <div class="details-head">
        <h2>{props.kind} {props.namespace}/{props.name}</h2>
        <button type="button" onClick={props.onClose}>Close</button>
      </div>
      {(props.kind === 'Deployment' || props.kind === 'StatefulSet') && <WorkloadActions kind={props.kind} namespace={props.namespace} name={props.name} />}
      <Timeline kind={props.kind} namespace={props.namespace} name={props.name} />
    </aside>
  );
}

function PlacementTable(props: { namespace: string; name: string; version: string }) {
  const [placement, setPlacement] = useState<Placement>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    api<Placement>(`/dashboard/api/placement/namespaces/${encodeURIComponent(props.namespace)}/pods/${encodeURIComponent(props.name)}`)
      .then((p) => { if (live) { setPlacement(p); setError(undefined); } })
      .catch((e: ApiFailure) => { if (live) setError(e.message); });
    return () => { live = false; };
  }, [props.namespace, props.name, props.version]);
  if (error) return <section aria-label="placement"><h3>Why here, why not there</h3><p role="alert" class="error">{error}</p></section>;
  if (!placement) return <section aria-label="placement"><h3>Why here, why not there</h3><p>…</p></section>;
  return (
    <section aria-label="placement">
      <h3>Why here, why not there</h3>
      <table class="placement">
        <thead><tr><th scope="col">Node</th><th scope="col">Verdict</th><th scope="col">Filters that fail</th></tr></thead>
        <tbody>
          {placement.nodes.map((n) => (
            <tr key={n.node} data-placement-node={n.node} class={n.fits ? 'fits' : 'fails'}>
              <th scope="row">{n.node}{n.node === placement.pod.nodeName ? ' (here)' : ''}</th>
              <td>{n.fits ? 'fits' : 'does not fit'}</td>
              <td>
                {n.filters.filter((f) => f.verdict === 'Fail' || f.verdict === 'Error').map((f) => (
                  <div key={f.filter} class="reason"><b>{f.filter}</b>: {f.reasons.join(', ')}</div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** events.k8s.io orders by eventTime; core events by firstTimestamp (when it first happened); either, else creation. */
const eventTime = (e: Event) => e.eventTime ?? e.firstTimestamp ?? e.lastTimestamp ?? e.metadata?.creationTimestamp ?? '';

/**
 * Timestamps have whole seconds, and a controller records several events in
 * one; within a second the order they were stored in decides, which is their
 * creation order as long as they have not been updated since (a repeated
 * event's count bumps its resourceVersion).
 */
const byTime = (a: Event, b: Event) => eventTime(a).localeCompare(eventTime(b)) || Number(a.metadata?.resourceVersion) - Number(b.metadata?.resourceVersion);

function Timeline(props: { kind: string; namespace: string; name: string }) {
  const selector = encodeURIComponent(`involvedObject.kind=${props.kind},involvedObject.name=${props.name}`);
  const events = useCollection<Event>(`/api/v1/namespaces/${encodeURIComponent(props.namespace)}/events?fieldSelector=${selector}`);
  const list = [...events.items.values()].sort(byTime);
  return (
    <section aria-label="events">
      <h3>Events</h3>
      {events.error && <p role="alert" class="error">{events.error.message}</p>}
      <ol class="timeline">
        {list.map((e) => (
          <li key={e.metadata!.uid} class={`event ${e.type === 'Warning' ? 'warning' : 'normal'}`}>
            <time>{eventTime(e).replace('T', ' ').replace(/(\.\d+)?Z$/, '')}</time> <b>{e.reason}</b> {e.message}
            {(e.count ?? 1) > 1 && <span class="count"> ×{e.count}</span>}
          </li>
        ))}
      </ol>
      {events.synced && list.length === 0 && <p>No events.</p>}
    </section>
  );
}
