/**
 * The cluster map: a column per node (roles, Ready, runtime, allocation,
 * taints as badges with their effect) holding its pods as cards grouped by
 * owner, and a column for pods no node has yet. Nodes the user may not list
 * still get a column from their pods' spec.nodeName, without details.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Node } from 'kubernetes-types/core/v1';
import { countsText, nodeReady, nodeRoles, nodeRuntime, ordinalOf, podKey, podState, isMirrorPod, taintText, visibleRange } from './model.js';
import { drawnGroups, type DrawnGroup, type MapData } from './map-data.js';
import type { NodeAction } from './node-actions.js';

interface MapProps {
  nodes: ReadonlyMap<string, Node>; nodesVersion: number; data: MapData;
  /** The columns drawn now ('' is the pending column): the page loads their pods. */
  onView?(columns: readonly string[]): void;
  canPatchNodes: boolean; canDrainNodes: boolean; canDeleteNodes: boolean; selected?: string;
  onSelect(key: string): void; onSelectOwner(o: { kind: string; namespace: string; name: string }): void; onAction(a: NodeAction): void;
}

/** A column's width in px, its gap included (style.css: .column is 240px wide, .map's gap 12px). */
const columnWidth = 252;
/** Cards drawn per owner group in a column; the rest are counted, not drawn. */
export const groupCards = 24;

/**
 * The map is virtualised: only the columns in the viewport (and two either
 * side) are rendered, between two spacers as wide as the columns left out,
 * so 5,000 nodes cost the DOM of a dozen columns. The page holds the pods of
 * the drawn columns only (onView); counts come from the server's summary, so
 * a group of more than `groupCards` pods shows the rest as counts by state,
 * and a column whose pods are not loaded yet shows its groups' counts.
 */
export function ClusterMap(p: MapProps) {
  const [filter, setFilter] = useState('');
  const names = useMemo(() => {
    // Node keys are "/name" (no namespace); nodes the user may not list still get a column from their pods.
    const all = new Set<string>();
    for (const k of p.nodes.keys()) all.add(k.slice(1));
    for (const n of p.data.podNodes) all.add(n);
    return [...all].filter((n) => n.includes(filter)).sort();
  }, [p.nodes, p.nodesVersion, p.data.podNodes, filter]);
  const columns = ['', ...names];
  const ref = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ scrollLeft: 0, viewWidth: 1600 });
  useEffect(() => {
    const el = ref.current!;
    let queued = false;
    const measure = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; setView({ scrollLeft: el.scrollLeft, viewWidth: el.clientWidth }); });
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    el.addEventListener('scroll', measure, { passive: true });
    return () => { ro.disconnect(); el.removeEventListener('scroll', measure); };
  }, []);
  const [first, end] = visibleRange({ count: columns.length, width: columnWidth, ...view, overscan: 2 });
  const drawn = columns.slice(first, end);
  const drawnKey = drawn.join('\u0000');
  useEffect(() => { p.onView?.(drawn); }, [drawnKey]);
  return (
    <>
      <div class="map-bar">
        <label>Filter nodes <input type="search" aria-label="filter nodes" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} /></label>
        <span class="window" aria-live="polite">{names.length} nodes; columns {first + 1}–{end} of {columns.length} drawn</span>
      </div>
      <div class="map" ref={ref}>
        <div class="spacer" style={{ width: `${first * columnWidth}px` }} />
        {drawn.map((name) => (name === ''
          ? <section class="column pending-column" aria-label="pending pods" key="">
              <h2>Pending <span class="count">{p.data.total('')}</span></h2>
              <Groups {...p} column="" />
            </section>
          : <section class="column" aria-label={`node ${name}`} key={name}>
              <NodeHeader {...p} name={name} node={p.nodes.get(`/${name}`)} here={p.data.total(name)} />
              <Groups {...p} column={name} />
            </section>))}
        <div class="spacer" style={{ width: `${(columns.length - end) * columnWidth}px` }} />
      </div>
    </>
  );
}

function NodeHeader(props: MapProps & { name: string; node?: Node; here: number }) {
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
        <span>{props.here}/{node.status?.allocatable?.pods ?? '?'} pods</span>
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
      {(props.canPatchNodes || props.canDeleteNodes) && (
        <div class="node-actions">
          {props.canPatchNodes && <button type="button" onClick={() => act({ kind: 'taint', node })}>Taint…</button>}
          {props.canPatchNodes && <button type="button" onClick={() => act({ kind: node.spec?.unschedulable ? 'uncordon' : 'cordon', node })}>
            {node.spec?.unschedulable ? 'Uncordon' : 'Cordon'}
          </button>}
          {props.canDrainNodes && <button type="button" onClick={() => act({ kind: 'drain', node })}>Drain…</button>}
          {props.canDeleteNodes && <button type="button" onClick={() => act({ kind: 'delete', node })}>Delete…</button>}
        </div>
      )}
    </div>
  );
}

function Groups(props: MapProps & { column: string }) {
  const pods = props.data.pods(props.column);
  return (
    <>
      {drawnGroups(pods, props.data.summary(props.column), groupCards).map((g: DrawnGroup) => (
        <div class="group" key={`${g.kind}/${g.namespace}/${g.name}`}>
          <h3>{g.kind === 'Pod' ? 'Pods' : g.kind === 'Static' ? 'Static pods' : (
            <button type="button" class="owner" data-owner={`${g.kind}/${g.namespace}/${g.name}`}
              onClick={() => props.onSelectOwner({ kind: g.kind, namespace: g.namespace, name: g.name })}>{g.kind} {g.name}</button>
          )}</h3>
          <ul>
            {g.pods.slice(0, groupCards).map((pod) => (
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
          {g.more > 0 && (
            <p class="more" data-more={`${g.kind}/${g.namespace}/${g.name}`}>{pods ? `+${g.more} more` : `${g.more} pods`}: {countsText(g.moreCounts)}</p>
          )}
        </div>
      ))}
    </>
  );
}
