/**
 * The Timeline view: the whole cluster's Events and the changes the page saw
 * in its watches, one stream oldest first, filtered by namespace, kind and
 * name (a name in the list narrows to that object), and the replay of the
 * map below it.
 */
import { Component } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { entryMatches, type TimelineEntry, type TimelineFilter } from './timeline-model.js';
import { entryCapacity, type Recorder } from './timeline-recorder.js';
import { Replay } from './timeline-replay.js';

/** Lines drawn: the newest matching ones (the rest are counted). */
const shown = 300;

/** Redraws of the timeline and replay while events stream in: at most one per this many ms (a burst of watch events is read, not watched frame by frame). */
const redrawMs = 250;

/**
 * Re-renders the caller when the recording changes: at once after a quiet
 * spell, else at most once every `redrawMs`. Returns a version to memoise on.
 */
export function useRecording(recorder: Recorder): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const redraw = () => { timer = undefined; last = performance.now(); setVersion((v) => v + 1); };
    const off = recorder.subscribe(() => {
      if (timer) return;
      const wait = last + redrawMs - performance.now();
      if (wait <= 0) redraw(); else timer = setTimeout(redraw, wait);
    });
    return () => { off(); if (timer) clearTimeout(timer); };
  }, [recorder]);
  return version;
}

const clock = (iso: string) => iso.replace(/^.*T/, '').replace(/Z$/, '');

/** namespace: the page's scope (undefined: every namespace), known before the view is drawn; the view owns the Events watch. */
export function TimelineView(props: { recorder: Recorder; namespace: string | undefined }) {
  const { recorder, namespace } = props;
  const version = useRecording(recorder);
  useEffect(() => recorder.showEvents(namespace), [recorder, namespace]);
  const [filter, setFilter] = useState<TimelineFilter>({ namespace: '', kind: '', name: '', source: '' });
  const all = useMemo(() => [...recorder.history, ...recorder.entries.toArray()], [recorder, version]);
  const { namespaces, kinds } = useMemo(() => ({
    namespaces: [...new Set(all.map((e) => e.namespace).filter((n) => n))].sort(),
    kinds: [...new Set(all.map((e) => e.kind).filter((k) => k))].sort(),
  }), [all]);
  const matching = useMemo(() => all.filter((e) => entryMatches(e, filter)), [all, filter]);
  const set = useCallback((f: Partial<TimelineFilter>) => setFilter((old) => ({ ...old, ...f })), []);
  return (
    <div class="timeline-view">
      <section aria-label="timeline">
        <div class="timeline-bar">
          <label>Namespace <select name="namespace" value={filter.namespace} onChange={(e) => set({ namespace: e.currentTarget.value })}>
            <option value="">all</option>{namespaces.map((n) => <option key={n} value={n}>{n}</option>)}
          </select></label>
          <label>Kind <select name="kind" value={filter.kind} onChange={(e) => set({ kind: e.currentTarget.value })}>
            <option value="">all</option>{kinds.map((k) => <option key={k} value={k}>{k}</option>)}
          </select></label>
          <label>Name <input type="search" name="name" value={filter.name} onInput={(e) => set({ name: e.currentTarget.value })} /></label>
          <label>Source <select name="source" value={filter.source} onChange={(e) => set({ source: e.currentTarget.value as TimelineFilter['source'] })}>
            <option value="">Events and watches</option><option value="event">Events</option><option value="watch">watch changes</option>
          </select></label>
          <span class="recorded" aria-live="polite">
            {matching.length} of {all.length} lines{matching.length > shown ? `, the newest ${shown} shown` : ''};
            keeps the newest {entryCapacity.toLocaleString('en')}{recorder.dropped.entries ? ` (${recorder.dropped.entries} dropped)` : ''}
          </span>
        </div>
        {recorder.errors.map((m, i) => <p key={i} role="alert" class="error">{m}</p>)}
        <ol class="timeline cluster-timeline">
          {matching.slice(-shown).map((e, i) => <Line key={e.seq >= 0 ? e.seq : `h${i}`} e={e} onPick={(f) => set(f)} />)}
        </ol>
      </section>
      <Replay recorder={recorder} version={version} />
    </div>
  );
}

/** One line; entries never change once recorded, so a redraw diffs only the lines that are new. */
class Line extends Component<{ e: TimelineEntry; onPick(f: Partial<TimelineFilter>): void }> {
  override shouldComponentUpdate(next: { e: TimelineEntry }) { return next.e !== this.props.e; }
  render() { return <LineView {...this.props} />; }
}

function LineView(props: { e: TimelineEntry; onPick(f: Partial<TimelineFilter>): void }) {
  const { e } = props;
  return (
    <li class={`event ${e.type === 'Warning' ? 'warning' : 'normal'} source-${e.source}`} data-entry={e.source} data-kind={e.kind} data-name={e.name}
      data-namespace={e.namespace} data-reason={e.reason}>
      <time dateTime={e.at}>{clock(e.at)}</time>{' '}
      <span class="source" title={e.source === 'event' ? `Event from ${e.component || 'unknown'}` : 'seen in the page\'s watch'}>{e.source === 'event' ? 'Event' : 'watch'}</span>{' '}
      <button type="button" class="link" title="only this object" onClick={() => props.onPick({ kind: e.kind, namespace: e.namespace, name: e.name })}>
        {e.kind} {e.namespace ? `${e.namespace}/` : ''}{e.name}
      </button>{' '}
      <b>{e.reason}</b> {e.message}
      {(e.count ?? 1) > 1 && <span class="count"> ×{e.count}</span>}
    </li>
  );
}
