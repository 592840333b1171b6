/**
 * The cluster map: a column per node (roles, Ready, runtime, allocation,
 * taints as badges with their effect) holding its pods as cards grouped by
 * owner, and a column for pods no node has yet. Nodes the user may not list
 * still get a column from their pods' spec.nodeName, without details.
 */
import type { Node, Pod } from 'kubernetes-types/core/v1';
import { groupPods, nodeReady, nodeRoles, nodeRuntime, ordinalOf, podKey, podState, isMirrorPod, taintText, type PodGroup } from './model.js';
import type { NodeAction } from './node-actions.js';

interface MapProps {
  nodes: Node[]; pods: Pod[]; canPatchNodes: boolean; selected?: string;
  onSelect(key: string): void; onSelectOwner(o: { kind: string; namespace: string; name: string }): void; onAction(a: NodeAction): void;
}

export function ClusterMap(p: MapProps) {
  const byNode = new Map<string, Pod[]>();
  for (const n of p.nodes) byNode.set(n.metadata!.name!, []);
  const pending: Pod[] = [];
  for (const pod of p.pods) {
    const name = pod.spec?.nodeName;
    if (!name) { pending.push(pod); continue; }
    if (!byNode.has(name)) byNode.set(name, []);
    byNode.get(name)!.push(pod);
  }
  const nodeByName = new Map(p.nodes.map((n) => [n.metadata!.name!, n]));
  const names = [...byNode.keys()].sort();
  return (
    <div class="map">
      <section class="column pending-column" aria-label="pending pods">
        <h2>Pending <span class="count">{pending.length}</span></h2>
        <Groups groups={groupPods(pending)} {...p} />
      </section>
      {names.map((name) => (
        <section class="column" aria-label={`node ${name}`} key={name}>
          <NodeHeader {...p} name={name} node={nodeByName.get(name)} here={byNode.get(name)!} />
          <Groups groups={groupPods(byNode.get(name)!)} {...p} />
        </section>
      ))}
    </div>
  );
}

function NodeHeader(props: MapProps & { name: string; node?: Node; here: Pod[] }) {
  const { name, node } = props;
  if (!node) return <h2>{name}</h2>;
  const ready = nodeReady(node);
  const taints = node.spec?.taints ?? [];
  const act = (a: NodeAction) => props.onAction(a);
  return (
    <div class="node-header">
      <h2>{name}</h2>
      <div class="node-facts">
        <span class={`ready ready-${ready}`}>{ready === 'True' ? 'Ready' : ready === 'False' ? 'NotReady' : 'Unknown'}</span>
        <span>{nodeRoles(node).join(',')}</span>
        <span class="runtime">{nodeRuntime(node)}</span>
        <span>{props.here.length}/{node.status?.allocatable?.pods ?? '?'} pods</span>
        {node.spec?.unschedulable && <span class="badge cordoned">SchedulingDisabled</span>}
      </div>
      <ul class="taints" aria-label={`taints of ${name}`}>
        {taints.map((t) => (
          <li key={taintText(t)} class={`badge taint effect-${t.effect}`} data-taint={taintText(t)}>
            {taintText(t)}
            {props.canPatchNodes && <button type="button" class="untaint" aria-label={`remove taint ${taintText(t)} from ${name}`}
              onClick={() => act({ kind: 'untaint', node, taint: t })}>×</button>}
          </li>
        ))}
      </ul>
      {props.canPatchNodes && (
        <div class="node-actions">
          <button type="button" onClick={() => act({ kind: 'taint', node })}>Taint…</button>
          <button type="button" onClick={() => act({ kind: node.spec?.unschedulable ? 'uncordon' : 'cordon', node })}>
            {node.spec?.unschedulable ? 'Uncordon' : 'Cordon'}
          </button>
        </div>
      )}
    </div>
  );
}

function Groups(props: { groups: PodGroup[] } & MapProps) {
  return (
    <>
      {props.groups.map((g) => (
        <div class="group" key={`${g.kind}/${g.namespace}/${g.name}`}>
          <h3>{g.kind === 'Pod' ? 'Pods' : g.kind === 'Static' ? 'Static pods' : (
            <button type="button" class="owner" data-owner={`${g.kind}/${g.namespace}/${g.name}`}
              onClick={() => props.onSelectOwner({ kind: g.kind, namespace: g.namespace, name: g.name })}>{g.kind} {g.name}</button>
          )}</h3>
          <ul>
            {g.pods.map((pod) => (
              <li key={podKey(pod)}>
                <button type="button" class={`pod ${podState(pod)}${props.selected === podKey(pod) ? ' selected' : ''}`} data-pod={podKey(pod)}
                  aria-pressed={props.selected === podKey(pod)} onClick={() => props.onSelect(podKey(pod))}
                  title={`${podKey(pod)}: ${podState(pod)}`}>
                  {g.kind === 'StatefulSet' && <span class="ordinal">{ordinalOf(pod)}</span>}
                  <span class="name">{pod.metadata?.name}</span>
                  {isMirrorPod(pod) && <span class="badge mirror">mirror</span>}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </>
  );
}
