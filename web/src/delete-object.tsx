/**
 * Delete one object from the Objects view, as `kubectl delete KIND NAME -n NS`:
 * a confirmation showing that command, then a DELETE carrying the object's
 * uid as a precondition, so an object deleted and created again meanwhile
 * under the same name (not the one the user looked at) answers 409 instead
 * of going. The button shows only when a SelfSubjectAccessReview allows
 * delete on the resource; a refusal anyway is shown in the API's words.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { canI, send, type ApiFailure } from './api.js';
import { objectPath, type Resource } from './resources.js';

/** kubectl's name for the kind in commands and output: `configmap`, `deployment.apps`. */
export const kindName = (r: Resource) => `${r.kind.toLowerCase()}${r.group ? `.${r.group}` : ''}`;

export const deleteCommand = (r: Resource, namespace: string | undefined, name: string) =>
  `kubectl delete ${kindName(r)} ${name}${r.namespaced && namespace ? ` -n ${namespace}` : ''}`;

export function DeleteObject(props: { resource: Resource; namespace?: string; name: string; uid?: string; onDeleted(): void }) {
  const { resource } = props;
  const [may, setMay] = useState(false);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!resource.verbs.includes('delete')) return;
    void canI('delete', resource.name, resource.namespaced ? props.namespace : undefined, { group: resource.group }).then(setMay);
  }, [resource, props.namespace]);
  if (!may || !props.uid) return null;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>Delete…</button>
      {open && <DeleteDialog {...props} uid={props.uid} onClose={() => setOpen(false)} />}
    </>
  );
}

function DeleteDialog(props: { resource: Resource; namespace?: string; name: string; uid: string; onClose(): void; onDeleted(): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => { ref.current?.showModal(); }, []);
  const confirm = async () => {
    setBusy(true);
    try {
      await send(objectPath(props.resource, props.namespace, props.name), 'DELETE',
        { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: props.uid } });
      ref.current?.close();
      props.onDeleted();
    } catch (e) {
      setError((e as ApiFailure).message);
      setBusy(false);
    }
  };
  const label = `delete ${kindName(props.resource)} ${props.namespace ? `${props.namespace}/` : ''}${props.name}`;
  return (
    <dialog ref={ref} class="action" aria-label={label} onClose={props.onClose}>
      <h2>Delete {props.resource.kind} {props.namespace ? `${props.namespace}/` : ''}{props.name}</h2>
      <p>Only this object (uid {props.uid}); what it owns goes by garbage collection, as with kubectl.</p>
      <p>Equivalent command:</p>
      <pre class="command">{deleteCommand(props.resource, props.namespace, props.name)}</pre>
      {error && <p role="alert" class="error">{error}</p>}
      <div class="dialog-buttons">
        <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
        <button type="button" class="confirm" disabled={busy} onClick={confirm}>Confirm</button>
      </div>
    </dialog>
  );
}
