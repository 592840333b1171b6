/**
 * Join tokens: the bootstrap tokens (kube-system Secrets, bootstrap-token.ts)
 * listed as `kubeadm token list` shows them, live from a watch; created with
 * a TTL and deleted, each confirmed with the equivalent `k8ts token`
 * command; and each token's join command to copy. The CA hash comes from the
 * cluster's CA bundle (kube-root-ca.crt, which every namespace holds), the
 * address from kube-public/cluster-info when the cluster publishes one, else
 * this page's own (the page is served by the API server).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1';
import { api, canI, send, type ApiFailure } from './api.js';
import { useCollection } from './use-collection.js';
import { caCertHashes, joinCommand, newToken, parseTTL, tokenRow, tokenSecret, ttlText } from './bootstrap-token.js';

const secretsPath = '/api/v1/namespaces/kube-system/secrets';

async function joinTarget(): Promise<{ hostPort: string; hashes: string[] }> {
  const ca = await api<ConfigMap>('/api/v1/namespaces/kube-system/configmaps/kube-root-ca.crt');
  let hostPort = location.host;
  try {
    const info = await api<ConfigMap>('/api/v1/namespaces/kube-public/configmaps/cluster-info');
    const server = /server:\s*(\S+)/.exec(info.data?.kubeconfig ?? '')?.[1];
    if (server) hostPort = server.replace(/^https:\/\//, '');
  } catch { /* no cluster-info: this page's address */ }
  return { hostPort, hashes: await caCertHashes(ca.data?.['ca.crt'] ?? '') };
}

export function JoinTokens() {
  const [may, setMay] = useState<{ list: boolean; create: boolean; delete: boolean }>();
  const [target, setTarget] = useState<{ hostPort: string; hashes: string[] }>();
  const [error, setError] = useState<string>();
  const [ttl, setTTL] = useState('24h0m0s');
  const [description, setDescription] = useState('');
  const [confirm, setConfirm] = useState<{ command: string; run(): Promise<unknown> }>();
  useEffect(() => {
    void Promise.all(['list', 'create', 'delete'].map((v) => canI(v, 'secrets', 'kube-system')))
      .then(([list, create, del]) => setMay({ list, create, delete: del }));
    joinTarget().then(setTarget).catch((e: ApiFailure) => setError(e.message));
  }, []);
  const secrets = useCollection<Secret>(may?.list ? secretsPath : undefined);
  const now = new Date();
  const rows = [...secrets.items.values()].map(tokenRow).filter((r) => r !== undefined).sort((a, b) => a.id.localeCompare(b.id));
  const ttlMs = parseTTL(ttl);
  const create = () => {
    const t = newToken();
    const flags = `--ttl ${ttl}${description ? ` --description "${description}"` : ''}`;
    setConfirm({ command: `k8ts token create ${t.id}.${t.secret} ${flags}`, run: () => send(secretsPath, 'POST', tokenSecret(t, ttlMs!, description, new Date())) });
  };
  if (may && !may.list) return <section class="objects" aria-label="join tokens"><h2>Join tokens</h2><p role="alert" class="error">Listing Secrets in kube-system is not allowed for this user.</p></section>;
  return (
    <section class="objects" aria-label="join tokens">
      <h2>Join tokens</h2>
      {error && <p role="alert" class="error">{error}</p>}
      {secrets.error && <p role="alert" class="error">{secrets.error.message}</p>}
      {may?.create && (
        <form class="token-form" onSubmit={(e) => { e.preventDefault(); if (ttlMs !== undefined) create(); }}>
          <label>TTL <input name="ttl" value={ttl} onInput={(e) => setTTL(e.currentTarget.value)} aria-invalid={ttlMs === undefined} /></label>
          <label>Description <input name="description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} /></label>
          <button type="submit" disabled={ttlMs === undefined}>Create token…</button>
          {ttlMs === undefined && <span role="alert" class="error">invalid argument "{ttl}" for "--ttl" flag: time: invalid duration "{ttl}"</span>}
        </form>
      )}
      <table class="object-list tokens">
        <thead><tr><th scope="col">TOKEN</th><th scope="col">TTL</th><th scope="col">EXPIRES</th><th scope="col">USAGES</th><th scope="col">DESCRIPTION</th><th scope="col">Join command</th><th /></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-token={r.id}>
              <td><code>{r.token}</code></td><td>{ttlText(r.expires, now)}</td><td>{r.expires ?? '<never>'}</td><td>{r.usages.join(',')}</td><td>{r.description || '<none>'}</td>
              <td>{target && <><code class="join">{joinCommand(target.hostPort, r.token, target.hashes)}</code>
                <button type="button" onClick={() => void navigator.clipboard?.writeText(joinCommand(target.hostPort, r.token, target.hashes))}>Copy</button></>}</td>
              <td>{may?.delete && <button type="button" aria-label={`delete token ${r.id}`}
                onClick={() => setConfirm({ command: `k8ts token delete ${r.id}`, run: () => send(`${secretsPath}/bootstrap-token-${r.id}`, 'DELETE', {}) })}>Delete…</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {secrets.synced && rows.length === 0 && <p>No bootstrap tokens.</p>}
      {confirm && <Confirm {...confirm} onClose={() => setConfirm(undefined)} />}
    </section>
  );
}

function Confirm(props: { command: string; run(): Promise<unknown>; onClose(): void }) {
  const [error, setError] = useState<string>();
  return (
    <dialog open class="action" aria-label="token action">
      <p>Equivalent command:</p>
      <pre class="command">{props.command}</pre>
      {error && <p role="alert" class="error">{error}</p>}
      <div class="dialog-buttons">
        <button type="button" onClick={props.onClose}>Cancel</button>
        <button type="button" class="confirm" onClick={() => props.run().then(props.onClose, (e: ApiFailure) => setError(e.message))}>Confirm</button>
      </div>
    </dialog>
  );
}
