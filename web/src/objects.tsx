/**
 * Every served resource (discovery, CRDs included), its objects live from a
 * watch, and one object as YAML, editable and written back with server-side
 * apply under the field manager "k8ts-dashboard": a field another manager
 * owns with a different value answers 409 with upstream's conflict message,
 * shown as is, and "Apply with --force-conflicts" takes the fields over, as
 * `kubectl apply --server-side --force-conflicts` does. An object can be
 * deleted from there (delete-object.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { parse, stringify } from 'yaml';
import { api, ApiFailure, type Meta } from './api.js';
import { useCollection } from './use-collection.js';
import { DeleteObject, kindName } from './delete-object.js';
import { collectionPath, discoverResources, kubectlName, objectPath, type Resource } from './resources.js';

const fieldManager = 'k8ts-dashboard';
const resourceKey = (r: Resource) => `${r.group}/${r.name}`;

interface KubeObject { apiVersion?: string; kind?: string; metadata?: Meta & { creationTimestamp?: string; managedFields?: unknown } }

/** "5m", "3h", "2d": kubectl's AGE column, roughly. */
function age(ts: string | undefined): string {
  if (!ts) return '';
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(ts)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export function ObjectsView(props: { namespace?: string }) {
  const [resources, setResources] = useState<Resource[]>([]);
  const [error, setError] = useState<string>();
  const [chosen, setChosen] = useState<string>('/pods');
  const [open, setOpen] = useState<{ namespace?: string; name: string }>();
  const [deleted, setDeleted] = useState<string>();
  useEffect(() => {
    discoverResources().then(setResources, (e: ApiFailure) => setError(e.message));
  }, []);
  const resource = resources.find((r) => resourceKey(r) === chosen);
  return (
    <div class="objects">
      {error && <p role="alert" class="error">{error}</p>}
      <label class="resource-picker">Resource{' '}
        <select aria-label="resource" value={chosen} onChange={(e) => { setOpen(undefined); setDeleted(undefined); setChosen((e.target as HTMLSelectElement).value); }}>
          {resources.map((r) => <option key={resourceKey(r)} value={resourceKey(r)}>{r.kind}{r.group ? ` (${r.group})` : ''}</option>)}
        </select>
      </label>
      {deleted && <p role="status" class="applied">{deleted}</p>}
      {resource && <ObjectList key={chosen} resource={resource} namespace={props.namespace} onOpen={(o) => { setDeleted(undefined); setOpen(o); }} />}
      {resource && open && (
        <ObjectEditor key={`${chosen}/${open.namespace}/${open.name}`} resource={resource} namespace={open.namespace} name={open.name} onClose={() => setOpen(undefined)}
          // kubectl's own line for it: `configmap "dash-cm" deleted`.
          onDeleted={() => { setOpen(undefined); setDeleted(`${kindName(resource)} "${open.name}" deleted`); }} />
      )}
    </div>
  );
}

function ObjectList(props: { resource: Resource; namespace?: string; onOpen(o: { namespace?: string; name: string }): void }) {
  const { resource } = props;
  const objects = useCollection<KubeObject>(collectionPath(resource, props.namespace));
  const rows = [...objects.items.values()].sort((a, b) =>
    (a.metadata?.namespace ?? '').localeCompare(b.metadata?.namespace ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  return (
    <section aria-label={`${resource.kind} objects`}>
      {objects.error && <p role="alert" class="error">{objects.error.message}</p>}
      <table class="object-list">
        <thead><tr>{resource.namespaced && <th scope="col">Namespace</th>}<th scope="col">Name</th><th scope="col">Age</th></tr></thead>
        <tbody>
          {rows.map((o) => (
            <tr key={`${o.metadata?.namespace}/${o.metadata?.name}`}>
              {resource.namespaced && <td>{o.metadata?.namespace}</td>}
              <td><button type="button" class="link" onClick={() => props.onOpen({ namespace: o.metadata?.namespace, name: o.metadata!.name! })}>{o.metadata?.name}</button></td>
              <td>{age(o.metadata?.creationTimestamp)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {objects.synced && rows.length === 0 && <p>No {resource.name} found.</p>}
    </section>
  );
}

/** The object as `kubectl get -o yaml` shows it (managedFields hidden, as kubectl does by default). */
function asYAML(o: KubeObject): string {
  const copy = structuredClone(o);
  if (copy.metadata) delete copy.metadata.managedFields;
  return stringify(copy);
}

function ObjectEditor(props: { resource: Resource; namespace?: string; name: string; onClose(): void; onDeleted(): void }) {
  const path = objectPath(props.resource, props.namespace, props.name);
  const [text, setText] = useState<string>();
  const [uid, setUid] = useState<string>();
  const [status, setStatus] = useState<{ kind: 'error' | 'conflict' | 'applied'; message: string }>();
  const load = () => api<KubeObject>(path).then((o) => { setUid(o.metadata?.uid); setText(asYAML(o)); }, (e: ApiFailure) => setStatus({ kind: 'error', message: e.message }));
  useEffect(() => { void load(); }, [path]);

  const apply = async (force: boolean) => {
    setStatus(undefined);
    try {
      parse(text ?? ''); // a YAML mistake is the user's, said before anything is sent
    } catch (e) {
      setStatus({ kind: 'error', message: `YAML: ${(e as Error).message}` });
      return;
    }
    try {
      const written = await api<KubeObject>(`${path}?fieldManager=${fieldManager}${force ? '&force=true' : ''}`, {
        method: 'PATCH', headers: { 'Content-Type': 'application/apply-patch+yaml' }, body: text,
      });
      setText(asYAML(written));
      setStatus({ kind: 'applied', message: `${kubectlName(props.resource)}/${props.name} serverside-applied` });
    } catch (e) {
      const f = e as ApiFailure;
      setStatus({ kind: f.code === 409 ? 'conflict' : 'error', message: f.message });
    }
  };

  const ns = props.resource.namespaced && props.namespace ? ` -n ${props.namespace}` : '';
  return (
    <aside class="details" aria-label={`${props.resource.kind} ${props.namespace ? `${props.namespace}/` : ''}${props.name}`}>
      <div class="details-head">
        <h2>{props.resource.kind} {props.namespace ? `${props.namespace}/` : ''}{props.name}</h2>
        <button type="button" onClick={props.onClose}>Close</button>
      </div>
      {text === undefined && !status && <p>…</p>}
      {text !== undefined && (
        <>
          <textarea aria-label="YAML" class="yaml" spellcheck={false} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
          <p class="command">kubectl apply --server-side --field-manager={fieldManager}{ns} -f -</p>
          <div class="dialog-buttons">
            <button type="button" onClick={() => { setStatus(undefined); void load(); }}>Reload</button>
            <button type="button" onClick={() => void apply(false)}>Apply</button>
            {status?.kind === 'conflict' && <button type="button" onClick={() => void apply(true)}>Apply with --force-conflicts</button>}
            <DeleteObject resource={props.resource} namespace={props.namespace} name={props.name} uid={uid} onDeleted={props.onDeleted} />
          </div>
        </>
      )}
      {status && <p role={status.kind === 'applied' ? 'status' : 'alert'} class={status.kind === 'applied' ? 'applied' : 'error'}>{status.message}</p>}
    </aside>
  );
}
