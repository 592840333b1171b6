/** The dashboard's entry: log in with a bearer token (unless `k8ts dashboard` supplies credentials), then the cluster map. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { proxyConfig, session } from './api.js';
import { Login } from './login.js';
import { Dashboard } from './dashboard.js';

function App() {
  const [token, setToken] = useState(session.token);
  const [namespace, setNamespace] = useState(sessionStorage.getItem('k8ts-dashboard-namespace') ?? '');
  const [proxied, setProxied] = useState<boolean>();
  useEffect(() => { proxyConfig().then((c) => { session.proxy = c; setProxied(!!c); }); }, []);
  if (proxied === undefined) return null;
  if (!token && !proxied) {
    return <Login onLogin={(t, ns) => { session.token = t; sessionStorage.setItem('k8ts-dashboard-namespace', ns); setNamespace(ns); setToken(t); }} />;
  }
  return <Dashboard namespace={namespace} onLogout={() => { session.token = null; setToken(null); }} />;
}

render(<App />, document.getElementById('app')!);
