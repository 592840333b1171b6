/**
 * Replay: the map rebuilt at any point of the recording (the lists at page
 * load plus the pod and node watch events up to that point), chosen with a
 * slider (arrow keys step one watch event, Home/End jump) or played back at
 * 1x to 10x the recorded pace. "Live" follows the cluster again.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Node, Pod } from 'kubernetes-types/core/v1';
import { countStates, countsText, groupPods, nodeReady, nodeRoles, ordinalOf, podKey, podsByNode, podState, taintText } from './model.js';
import { changeCapacity, type Recorder } from './timeline-recorder.js';

const speeds = [1, 2, 5, 10];
/** Playback ticks (ms of wall time). */
const tick = 100;
/** A quiet stretch longer than this (recorded ms) plays as this long, so playback does not sit idle. */
const maxGap = 5_000;
/** Columns the replayed map draws (the live map virtualises; this one shows the first ones by name). */
const maxColumns = 60;
/** Cards drawn per owner group in a column (as the live map: the rest are counted by state). */
const groupCards = 24;

const clock = (ms: number) => new Date(ms).toISOString().replace(/^.*T/, '').replace(/Z$/, '');

export function Replay(props: { recorder: Recorder; version: number }) {
  const { recorder } = props;
  const [cursor, setCursor] = useState<number>();
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const first = recorder.firstChangeSeq;
  const last = recorder.nextSeq;
  const at = cursor === undefined ? last : Math.max(first, Math.min(cursor, last));
  const state = useMemo(() => recorder.stateAt(at), [recorder, at, first, cursor === undefined ? props.version : 0]);
  const atRef = useRef(at);
  atRef.current = at;
  useEffect(() => {
    if (!playing) return undefined;
    let pos = atRef.current >= recorder.nextSeq ? recorder.firstChangeSeq : atRef.current;
    let virtual = pos > recorder.firstChangeSeq ? recorder.changeTime(pos - 1) : recorder.changeTime(pos);
    setCursor(pos);
    const id = setInterval(() => {
      virtual += tick * speed;
      if (pos < recorder.nextSeq) virtual = Math.max(virtual, recorder.changeTime(pos) - maxGap);
      while (pos < recorder.nextSeq && recorder.changeTime(pos) <= virtual) pos++;
      // Played up to now: follow the cluster live again.
      if (pos >= recorder.nextSeq) { setPlaying(false); setCursor(undefined); } else setCursor(pos);
    }, tick);
    return () => clearInterval(id);
  }, [playing, speed, recorder]);
  const live = cursor === undefined;
  const when = at > first ? clock(recorder.changeTime(at - 1)) : `${clock(recorder.since)} (page loaded)`;
  return (
    <section aria-label="replay" class="replay">
      <h2>Replay</h2>
      <div class="replay-bar">
        <button type="button" onClick={() => setPlaying(!playing)} aria-pressed={playing}>{playing ? 'Pause' : 'Play'}</button>
        <label>Speed <select name="speed" value={speed} onChange={(e) => setSpeed(Number(e.currentTarget.value))}>
          {speeds.map((s) => <option key={s} value={s}>{s}x</option>)}
        </select></label>
        <input type="range" aria-label="replay position" min={first} max={last} step={1} value={at}
          onInput={(e) => { setPlaying(false); setCursor(Number(e.currentTarget.value)); }} />
        <button type="button" aria-pressed={live} onClick={() => { setPlaying(false); setCursor(undefined); }}>Live</button>
        <span class="replay-at" aria-live="polite" data-at={at - first} data-of={last - first}>
          {live ? 'live' : `${at - first} of ${last - first} watch events`} · {when} · {state.nodes.size} nodes · {state.pods.size} pods
        </span>
      </div>
      <p class="note">
        Recorded since the page loaded: the newest {changeCapacity.toLocaleString('en')} pod and node watch events are kept
        {recorder.dropped.changes ? ` (${recorder.dropped.changes} older ones folded into the starting state)` : ''}; quiet stretches over {maxGap / 1000} s play as {maxGap / 1000} s.
      </p>
      <ReplayMap pods={state.pods} nodes={state.nodes} />
    </section>
  );
}

function ReplayMap(props: { pods: ReadonlyMap<string, Pod>; nodes: ReadonlyMap<string, Node> }) {
  const byNode = podsByNode(props.pods.values());
  const names = [...new Set([...[...props.nodes.keys()].map((k) => k.slice(1)), ...[...byNode.keys()].filter((n) => n)])].sort();
  return (
    <div class="map replay-map">
      {['', ...names.slice(0, maxColumns)].map((name) => {
        const node = props.nodes.get(`/${name}`);
        const here = byNode.get(name) ?? [];
        return (
          <section class={`column${name ? '' : ' pending-column'}`} key={name} aria-label={name ? `replayed node ${name}` : 'replayed pending pods'}>
            <h2>{name || 'Pending'} <span class="count">{here.length}</span></h2>
            {node && <div class="node-facts"><span class={`ready ready-${nodeReady(node)}`}>{nodeReady(node) === 'True' ? 'Ready' : nodeReady(node) === 'False' ? 'NotReady' : 'Unknown'}</span>
              <span>{nodeRoles(node).join(',')}</span></div>}
            {name && !node && <div class="node-facts"><span>{props.nodes.size ? 'gone' : ''}</span></div>}
            <ul class="taints">{(node?.spec?.taints ?? []).map((t) => <li key={taintText(t)} class={`badge taint effect-${t.effect}`} data-taint={taintText(t)}>{taintText(t)}</li>)}</ul>
            {groupPods(here).map((g) => (
              <div class="group" key={`${g.kind}/${g.namespace}/${g.name}`}>
                <h3>{g.kind === 'Pod' ? 'Pods' : g.kind === 'Static' ? 'Static pods' : `${g.kind} ${g.name}`}</h3>
                <ul>{g.pods.slice(0, groupCards).map((p) => (
                  <li key={podKey(p)}><span class={`pod ${podState(p)}`} data-pod={podKey(p)}>
                    {g.kind === 'StatefulSet' && <span class="ordinal">{ordinalOf(p)}</span>}<span class="name">{p.metadata?.name}</span>
                  </span></li>
                ))}</ul>
                {g.pods.length > groupCards && <p class="more">+{g.pods.length - groupCards} more: {countsText(countStates(g.pods.slice(groupCards)))}</p>}
              </div>
            ))}
          </section>
        );
      })}
      {names.length > maxColumns && <p class="more">+{names.length - maxColumns} more nodes not drawn</p>}
    </div>
  );
}
