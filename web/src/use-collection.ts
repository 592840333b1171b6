/**
 * A live collection: list + watch (api.ts), as a Map keyed by namespace/name.
 * Watch events are applied to the Map as they arrive but published at most
 * once per animation frame, so a burst of thousands of events costs one
 * render, not one each. The Map is not copied (a copy of 50,000 pods per
 * frame would cost more than the render): `version` changes on every
 * publish, and derived views memoise on it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { listWatch, type ApiFailure, type Meta, type WatchEvent } from './api.js';

export interface Collection<T> { items: ReadonlyMap<string, T>; version: number; error?: ApiFailure; synced: boolean }

/**
 * Sees what the collection applies, in order: each list (the first, and any
 * after a broken watch) and each watch event. The timeline's recording taps
 * the map's watches rather than opening its own: a browser keeps at most six
 * HTTP/1.1 connections to one origin, and every watch holds one.
 */
export interface CollectionTap<T> { list(items: T[]): void; event(e: WatchEvent<T>): void }

const keyOf = (o: { metadata?: Meta }) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** Runs `f` at the next animation frame (or soon, in a hidden tab, where frames stop). */
function nextFrame(f: () => void): void {
  if (document.visibilityState === 'hidden') setTimeout(f, 50); else requestAnimationFrame(() => f());
}

export function useCollection<T extends { metadata?: Meta }>(path: string | undefined, tap?: CollectionTap<T>): Collection<T> {
  const items = useRef(new Map<string, T>());
  const version = useRef(0);
  const [state, setState] = useState<Collection<T>>({ items: items.current, version: 0, synced: false });
  useEffect(() => {
    items.current = new Map();
    setState({ items: items.current, version: ++version.current, synced: false });
    if (!path) return undefined;
    let pending = false;
    let live = true;
    const publish = () => {
      if (pending) return;
      pending = true;
      nextFrame(() => {
        pending = false;
        if (live) setState({ items: items.current, version: ++version.current, synced: true });
      });
    };
    const w = listWatch<T>(path, (list) => {
      items.current = new Map(list.map((o) => [keyOf(o), o]));
      tap?.list(list);
      publish();
    }, (e) => {
      if (e.type === 'DELETED') items.current.delete(keyOf(e.object)); else items.current.set(keyOf(e.object), e.object);
      tap?.event(e);
      publish();
    }, (error) => setState((s) => ({ ...s, error })));
    return () => { live = false; w.close(); };
  }, [path]);
  return state;
}
