/**
 * An https.Agent whose connection-pool name is computed once per target.
 *
 * Node's https.Agent names its pools by every TLS option of a request
 * (getName: host, port, then the CA, client certificate and key PEMs, ...),
 * and merges the agent's own options into each request's, so every request
 * builds that multi-kilobyte string again, in addRequest and again when its
 * socket is freed, and hashes it to find the pool. A scheduler binding
 * thousands of pods a second spent a few percent of its CPU there. The name
 * is the same for the same target and options: it is built once and the
 * same string returned after (its hash cached by V8), so pools are exactly
 * the ones Node would pick.
 */
import https from 'node:https';

export class PooledAgent extends https.Agent {
  private readonly names = new Map<string, string>();
  /** The last target's name: a client sends nearly every request to one server. */
  private last?: { host: unknown; port: unknown; localAddress: unknown; family: unknown; servername: unknown; socketPath: unknown; name: string };

  override getName(options: https.RequestOptions = {}): string {
    // What differs between requests of one client: the target. The TLS options come from the agent.
    const o = options as https.RequestOptions & { servername?: string };
    const l = this.last;
    if (l && l.host === o.host && l.port === o.port && l.localAddress === o.localAddress && l.family === o.family
      && l.servername === o.servername && l.socketPath === o.socketPath) return l.name;
    const key = `${o.host}:${o.port}:${o.localAddress ?? ''}:${o.family ?? ''}:${o.servername ?? ''}:${o.socketPath ?? ''}`;
    let name = this.names.get(key);
    if (name === undefined) {
      name = super.getName(options);
      // A client talks to a handful of servers; a name per target stays small.
      if (this.names.size < 64) this.names.set(key, name);
    }
    this.last = { host: o.host, port: o.port, localAddress: o.localAddress, family: o.family, servername: o.servername, socketPath: o.socketPath, name };
    return name;
  }
}
