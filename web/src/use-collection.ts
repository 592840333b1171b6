/** A live collection: list + watch (api.ts), as a Map keyed by namespace/name, re-rendering on each change. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { listWatch, type ApiFailure, type Meta } from './api.js';

export interface Collection<T> { items: ReadonlyMap<string, T>; error?: ApiFailure; synced: boolean }

const keyOf = (o: { metadata?: Meta }) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

export function useCollection<T extends { metadata?: Meta }>(path: string | undefined): Collection<T> {
  const items = useRef(new Map<string, T>());
  const [state, setState] = useState<Collection<T>>({ items: items.current, synced: false });
  useEffect(() => {
    items.current = new Map();
    setState({ items: items.current, synced: false });
    if (!path) return undefined;
    // Changes that arrive together render together (one frame, not one render per event).
    let pending = false;
    const publish = () => {
      if (pending) return;
      pending = true;
      queueMicrotask(() => { pending = false; setState({ items: new Map(items.current), synced: true }); });
    };
    const w = listWatch<T>(path, (list) => {
      items.current = new Map(list.map((o) => [keyOf(o), o]));
      publish();
    }, (e) => {
      if (e.type === 'DELETED') items.current.delete(keyOf(e.object)); else items.current.set(keyOf(e.object), e.object);
      publish();
    }, (error) => setState((s) => ({ ...s, error })));
    return () => w.close();
  }, [path]);
  return state;
}
