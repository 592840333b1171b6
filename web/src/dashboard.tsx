/** The logged-in page: the cluster map, the selected pod's details, the node action dialog. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Node, Pod } from 'kubernetes-types/core/v1';
import { session } from './api.js';
import { useCollection } from './use-collection.js';
import { useSummary } from './summary.js';
import { useColumnPods } from './column-pods.js';
import { useFullData, useSummaryData } from './map-data.js';
import { useScope } from './scope.js';
import { ClusterMap } from './cluster-map.js';
import { OwnerDetails, PodDetails } from './pod-details.js';
import { NodeActionDialog, type NodeAction } from './node-actions.js';
import { ObjectsView } from './objects.js';
import { JoinTokens } from './join-tokens.js';
import { Recorder } from './timeline-recorder.js';
import { TimelineView } from './timeline.js';
import { CountsStrip } from './counts-strip.js';
import { totalsOf } from '../../src/api/pod-tally.js';

/** Pods the Timeline's recording lists at page load for replay's starting state; more wait for the Timeline to open. */
const timelineListAtLoad = 5000;

export function Dashboard(props: { namespace: string; onLogout(): void }) {
  const scope = useScope(props.namespace);
  // Recording starts with the page (not with the Timeline view), so replay reaches back to the page's load.
  // It taps the map's watches (the pod watch of the columns in view, or of every pod without the summary).
  const [recorder] = useState(() => new Recorder());
  // Counts from the server's summary and the pods of the columns in view; every pod only without the summary.
  const summary = useSummary(scope?.namespace, !!scope);
  const [inView, setInView] = useState<readonly string[]>([]);
  const columnPods = useColumnPods(scope?.namespace, summary.available === true, inView, recorder.podTap.event);
  const pods = useCollection<Pod>(summary.available === false ? scope?.podsPath : undefined, recorder.podTap);
  const full = useFullData(pods);
  const scaled = useSummaryData(summary, columnPods);
  const data = summary.available === false ? full : scaled;
  // The strip's counts: the server's, or (without the summary) the page's own over the pods it lists.
  const fullTotals = useMemo(() => (summary.available === false ? totalsOf(pods.items.values()) : undefined), [summary.available, pods.items, pods.version]);
  const totals = summary.available === false ? fullTotals : summary.totals;
  const nodes = useCollection<Node>(scope?.listNodes ? '/api/v1/nodes' : undefined, recorder.nodeTap);
  const [selected, setSelectedPod] = useState<string>();
  const [owner, setOwner] = useState<{ kind: string; namespace: string; name: string }>();
  const setSelected = (key: string | undefined) => { setOwner(undefined); setSelectedPod(key); };
  const selectOwner = (o: { kind: string; namespace: string; name: string }) => { setSelectedPod(undefined); setOwner(o); };
  const [action, setAction] = useState<NodeAction>();
  const [view, setView] = useState<'map' | 'timeline' | 'objects' | 'tokens'>('map');
  // With the summary, the map lists no pods: the recording lists them once itself (no watch held) for its starting
  // state. Past timelineListAtLoad pods that list is what the summary spares the first load, so it waits for the
  // Timeline to be opened (replay then reaches back to that moment, not to the page's load).
  const deferList = summary.available === true && scaled.allPods > timelineListAtLoad;
  // The recording holds no connection of its own here (it taps the map's watches): the Timeline view owns its Events watch.
  useEffect(() => {
    if (scope && summary.available !== undefined) recorder.start({ listPods: summary.available && !deferList ? scope.podsPath : undefined, deferPods: deferList });
  }, [scope, summary.available]);
  useEffect(() => {
    if (scope && summary.available === true && view === 'timeline') recorder.start({ listPods: scope.podsPath });
  }, [scope, summary.available, view]);
  // The selected pod's column may scroll out of view (and be dropped): its panel keeps the last copy.
  const last = useRef<Pod | undefined>(undefined);
  const current = selected ? data.pod(selected) : undefined;
  if (current) last.current = current;
  const pod = current ?? (selected && last.current && `${last.current.metadata?.namespace}/${last.current.metadata?.name}` === selected ? last.current : undefined);
  return (
    <div class="layout">
      <header>
        <h1>k8ts</h1>
        <nav class="views" aria-label="views">
          <button type="button" aria-pressed={view === 'map'} onClick={() => setView('map')}>Cluster map</button>
          <button type="button" aria-pressed={view === 'timeline'} onClick={() => setView('timeline')}>Timeline</button>
          <button type="button" aria-pressed={view === 'objects'} onClick={() => setView('objects')}>Objects</button>
          <button type="button" aria-pressed={view === 'tokens'} onClick={() => setView('tokens')}>Join tokens</button>
        </nav>
        <span class="scope">{scope ? (scope.namespace ? `namespace ${scope.namespace}` : 'all namespaces') : 'checking access…'}</span>
        <span class="counts">{nodes.items.size} nodes · {data.allPods} pods</span>
        {/* Behind `k8ts dashboard` the proxy holds the identity (the kubeconfig's user): there is no token here to forget. */}
        {session.proxy
          ? <span class="identity">as the kubeconfig's user{session.proxy.context ? ` (context ${session.proxy.context})` : ''}</span>
          : <button type="button" onClick={props.onLogout}>Log out</button>}
      </header>
      {view === 'map' && <CountsStrip totals={totals} />}
      {(pods.error ?? summary.error ?? columnPods.error) && <p role="alert" class="error">{(pods.error ?? summary.error ?? columnPods.error)!.message}</p>}
      {nodes.error && <p role="alert" class="error">{nodes.error.message}</p>}
      <main>
        {scope && view === 'objects' && <ObjectsView namespace={scope.namespace} />}
        {scope && view === 'tokens' && <JoinTokens />}
        {scope && view === 'timeline' && <TimelineView recorder={recorder} namespace={scope.namespace} />}
        {scope && view === 'map' && <ClusterMap nodes={nodes.items} nodesVersion={nodes.version} data={data} onView={setInView} canPatchNodes={scope.patchNodes} canDrainNodes={scope.drainNodes} canDeleteNodes={scope.deleteNodes}
          selected={selected} onSelect={setSelected} onSelectOwner={selectOwner} onAction={setAction} />}
      </main>
      {view === 'map' && pod && <PodDetails pod={pod} onClose={() => setSelected(undefined)} />}
      {view === 'map' && owner && <OwnerDetails key={`${owner.kind}/${owner.namespace}/${owner.name}`} {...owner} onClose={() => setOwner(undefined)} />}
      {action && <NodeActionDialog action={action} onClose={() => setAction(undefined)} />}
    </div>
  );
}
