/**
 * A container's log, followed as `kubectl logs -f --tail=200` does it: one
 * streamed GET of pods/log with follow=true, text appended as it arrives,
 * the oldest lines dropped past 256 KiB so a chatty pod cannot fill the tab.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Pod } from 'kubernetes-types/core/v1';
import { session } from './api.js';

const maxChars = 256 * 1024;

export function PodLogs(props: { pod: Pod }) {
  const ns = props.pod.metadata!.namespace!;
  const name = props.pod.metadata!.name!;
  const containers = (props.pod.spec?.containers ?? []).map((c) => c.name);
  const [container, setContainer] = useState(containers[0] ?? '');
  const [text, setText] = useState('');
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (!container) return undefined;
    const ctl = new AbortController();
    setText('');
    setError(undefined);
    (async () => {
      const url = `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}/log?container=${encodeURIComponent(container)}&follow=true&tailLines=200`;
      const res = await fetch(url, { headers: { Authorization: `Bearer ${session.token ?? ''}` }, credentials: 'omit', signal: ctl.signal });
      if (!res.ok || !res.body) {
        let message = `${res.status} ${res.statusText}`;
        try { message = JSON.parse(await res.text()).message ?? message; } catch { /* not a Status */ }
        setError(message);
        return;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        setText((t) => (t + value).slice(-maxChars));
      }
    })().catch((e) => { if (!ctl.signal.aborted) setError(String(e)); });
    return () => ctl.abort();
  }, [ns, name, container]);
  return (
    <section aria-label="logs">
      <h3>Logs{containers.length > 1 && (
        <select aria-label="container" value={container} onChange={(e) => setContainer((e.target as HTMLSelectElement).value)}>
          {containers.map((c) => <option key={c} value={c}>{c}</option>)}
        </select>
      )}</h3>
      <p class="command">kubectl logs -f --tail=200 -n {ns} {name}{containers.length > 1 ? ` -c ${container}` : ''}</p>
      {error ? <p role="alert" class="error">{error}</p> : <pre class="logs">{text || '(no output yet)'}</pre>}
    </section>
  );
}
