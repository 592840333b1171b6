/** The login form: a bearer token pasted by the user (kept in sessionStorage only), and an optional namespace. */
import { useState } from 'preact/hooks';

export function Login(props: { onLogin(token: string, namespace: string): void }) {
  const [token, setToken] = useState('');
  const [ns, setNs] = useState('');
  return (
    <main class="login">
      <h1>k8ts dashboard</h1>
      <form onSubmit={(e) => { e.preventDefault(); if (token.trim()) props.onLogin(token.trim(), ns.trim()); }}>
        <label for="token">Bearer token</label>
        <textarea id="token" rows={4} value={token} onInput={(e) => setToken(e.currentTarget.value)} placeholder="kubectl create token NAME -n NAMESPACE" />
        <label for="namespace">Namespace (empty: all namespaces, or the token's own when it may not list them all)</label>
        <input id="namespace" value={ns} onInput={(e) => setNs(e.currentTarget.value)} />
        <button type="submit">Log in</button>
      </form>
      <p>The token stays in this tab (sessionStorage) and is sent as Authorization on every API call; what you see and may do is what RBAC grants it.</p>
    </main>
  );
}
