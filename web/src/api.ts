/**
 * The page's only way to the cluster: the ordinary Kubernetes API on the
 * page's own origin, with the user's bearer token as Authorization on every
 * call (no cookies, so there is no CSRF surface), and lists followed by
 * watches streamed with fetch. The token lives in sessionStorage: it is gone
 * when the tab closes.
 */
const tokenKey = 'k8ts-dashboard-token';

export const session = {
  get token(): string | null { return sessionStorage.getItem(tokenKey); },
  set token(t: string | null) { if (t) sessionStorage.setItem(tokenKey, t); else sessionStorage.removeItem(tokenKey); },
  /** Set when `k8ts dashboard` serves the page: it adds the kubeconfig's credentials itself, so no login. */
  proxy: undefined as ProxyConfig | undefined,
};

/** `k8ts dashboard`'s GET /dashboard/config; the API server's port has no such file (it answers the page's HTML). */
export interface ProxyConfig { credentials: 'kubeconfig'; context?: string; namespace?: string }

export async function proxyConfig(): Promise<ProxyConfig | undefined> {
  try {
    const res = await fetch('/dashboard/config', { credentials: 'omit' });
    if (!res.ok || !res.headers.get('content-type')?.startsWith('application/json')) return undefined;
    const c = await res.json();
    return c?.credentials === 'kubeconfig' ? c as ProxyConfig : undefined;
  } catch { return undefined; }
}

/** A Status the API answered, kept whole so the page can show upstream's words. */
export class ApiFailure extends Error {
  constructor(readonly code: number, message: string, readonly reason?: string) { super(message); }
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${session.token ?? ''}`);
  headers.set('Accept', 'application/json');
  const res = await fetch(path, { ...init, headers, credentials: 'omit' });
  const text = await res.text();
  let body: any;
  try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
  if (!res.ok) throw new ApiFailure(res.status, body?.message ?? `${res.status} ${res.statusText}`, body?.reason);
  return body as T;
}

export interface Meta { name?: string; namespace?: string; uid?: string; resourceVersion?: string }
export interface WatchEvent<T> { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: T }

export interface Watching { close(): void }

/**
 * List, then watch from the list's resourceVersion (client-go's reflector):
 * `onList` replaces everything, `onEvent` applies one change. A watch that
 * ends is resumed from the last resourceVersion seen; a 410 Gone (or any
 * failure) lists again after a short pause.
 */
export function listWatch<T extends { metadata?: Meta }>(path: string, onList: (items: T[]) => void, onEvent: (e: WatchEvent<T>) => void,
  onError: (e: ApiFailure) => void): Watching {
  const ctl = new AbortController();
  let rv = '';
  const sep = path.includes('?') ? '&' : '?';
  const list = async () => {
    const l = await api<{ items: T[]; metadata: { resourceVersion: string } }>(path, { signal: ctl.signal });
    rv = l.metadata.resourceVersion;
    onList(l.items);
  };
  const watch = async () => {
    const res = await fetch(`${path}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`, {
      headers: { Authorization: `Bearer ${session.token ?? ''}`, Accept: 'application/json' }, credentials: 'omit', signal: ctl.signal,
    });
    if (!res.ok || !res.body) throw new ApiFailure(res.status, `watch ${path}: ${res.status}`);
    await readLines<WatchEvent<T>>(res, (e) => {
      if (e.type === 'ERROR') throw new ApiFailure((e.object as any)?.code ?? 500, (e.object as any)?.message ?? 'watch error');
      rv = e.object.metadata?.resourceVersion ?? rv;
      if (e.type !== 'BOOKMARK') onEvent(e);
    });
  };
  (async () => {
    let listed = false;
    while (!ctl.signal.aborted) {
      try {
        if (!listed) { await list(); listed = true; }
        await watch();
      } catch (err) {
        if (ctl.signal.aborted) return;
        const f = err instanceof ApiFailure ? err : new ApiFailure(0, String(err));
        onError(f);
        // Refused for good (401/403): stop; anything else: list again.
        if (f.code === 401 || f.code === 403) return;
        listed = false;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  })();
  return { close: () => ctl.abort() };
}

/**
 * SelfSubjectAccessReview: may the user do `verb` on `resource` (in `group`, its `subresource`)? (What `kubectl auth can-i` asks.)
 * Only an answer counts: a request that failed on the way (no connection, 429, 5xx) is asked again a few
 * times, since reading it as "no" would hide a view (the timeline's Events) for as long as the page is open.
 */
export async function canI(verb: string, resource: string, namespace?: string, more: { group?: string; subresource?: string } = {}): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await api<{ status?: { allowed?: boolean } }>('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb, resource, namespace, ...more } } }),
      });
      return !!r.status?.allowed;
    } catch (e) {
      const transient = !(e instanceof ApiFailure) || e.code === 0 || e.code === 429 || e.code >= 500;
      if (!transient || attempt >= 5) return false;
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
  }
}

/** A JSON body sent with `method` and a content type (a patch type, or JSON). */
export const send = <T>(path: string, method: string, body: unknown, contentType = 'application/json') =>
  api<T>(path, { method, headers: { 'Content-Type': contentType }, body: JSON.stringify(body) });

/** Reads a response of one JSON object a line (a watch, the pod summary's stream), calling `onLine` for each. */
export async function readLines<T>(res: Response, onLine: (l: T) => void): Promise<void> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onLine(JSON.parse(line) as T);
    }
  }
}
