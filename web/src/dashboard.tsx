/** The logged-in page: the cluster map, the selected pod's details, the node action dialog. */
import { useEffect, useState } from 'preact/hooks';
import type { Node, Pod } from 'kubernetes-types/core/v1';
import { useCollection } from './use-collection.js';
import { useScope } from './scope.js';
import { ClusterMap } from './cluster-map.js';
import { OwnerDetails, PodDetails } from './pod-details.js';
import { NodeActionDialog, type NodeAction } from './node-actions.js';
import { ObjectsView } from './objects.js';
import { JoinTokens } from './join-tokens.js';
import { Recorder } from './timeline-recorder.js';
import { TimelineView } from './timeline.js';

export function Dashboard(props: { namespace: string; onLogout(): void }) {
  const scope = useScope(props.namespace);
  // Recording starts with the page (not with the Timeline view), so replay reaches back to the page's load.
  const [recorder] = useState(() => new Recorder());
  const pods = useCollection<Pod>(scope?.podsPath, recorder.podTap);
  const nodes = useCollection<Node>(scope?.listNodes ? '/api/v1/nodes' : undefined, recorder.nodeTap);
  const [selected, setSelectedPod] = useState<string>();
  const [owner, setOwner] = useState<{ kind: string; namespace: string; name: string }>();
  const setSelected = (key: string | undefined) => { setOwner(undefined); setSelectedPod(key); };
  const selectOwner = (o: { kind: string; namespace: string; name: string }) => { setSelectedPod(undefined); setOwner(o); };
  const [action, setAction] = useState<NodeAction>();
  const [view, setView] = useState<'map' | 'timeline' | 'objects' | 'tokens'>('map');
  useEffect(() => {
    if (scope) recorder.start(scope);
    return () => recorder.close();
  }, [scope]);
  const pod = selected ? pods.items.get(selected) : undefined;
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
        <span class="counts">{nodes.items.size} nodes · {pods.items.size} pods</span>
        <button type="button" onClick={props.onLogout}>Log out</button>
      </header>
      {pods.error && <p role="alert" class="error">{pods.error.message}</p>}
      {nodes.error && <p role="alert" class="error">{nodes.error.message}</p>}
      <main>
        {scope && view === 'objects' && <ObjectsView namespace={scope.namespace} />}
        {scope && view === 'tokens' && <JoinTokens />}
        {scope && view === 'timeline' && <TimelineView recorder={recorder} />}
        {scope && view === 'map' && <ClusterMap nodes={nodes.items} nodesVersion={nodes.version} pods={pods.items} podsVersion={pods.version} canPatchNodes={scope.patchNodes} canDrainNodes={scope.drainNodes} canDeleteNodes={scope.deleteNodes}
          selected={selected} onSelect={setSelected} onSelectOwner={selectOwner} onAction={setAction} />}
      </main>
      {view === 'map' && pod && <PodDetails pod={pod} onClose={() => setSelected(undefined)} />}
      {view === 'map' && owner && <OwnerDetails key={`${owner.kind}/${owner.namespace}/${owner.name}`} {...owner} onClose={() => setOwner(undefined)} />}
      {action && <NodeActionDialog action={action} onClose={() => setAction(undefined)} />}
    </div>
  );
}
