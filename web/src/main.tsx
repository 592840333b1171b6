/** The dashboard's entry: log in with a bearer token, then the cluster map. */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { session } from './api.js';
import { Login } from './login.js';
import { Dashboard } from './dashboard.js';

function App() {
  const [token, setToken] = useState(session.token);
  const [namespace, setNamespace] = useState(sessionStorage.getItem('k8ts-dashboard-namespace') ?? '');
  if (!token) {
    return <Login onLogin={(t, ns) => { session.token = t; sessionStorage.setItem('k8ts-dashboard-namespace', ns); setNamespace(ns); setToken(t); }} />;
  }
  return <Dashboard namespace={namespace} onLogout={() => { session.token = null; setToken(null); }} />;
}

render(<App />, document.getElementById('app')!);
