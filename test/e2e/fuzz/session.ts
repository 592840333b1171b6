/**
 * One fuzzing session against a real `k8ts server`: sends requests, checks
 * every answer with the oracle, counts them, and checks that what the server
 * stored can still be read, replaced and patched. If a finding killed the
 * server, the next property starts a fresh one, so one crash does not hide
 * the other properties' results.
 */
import { startCluster, type Cluster } from '../harness.js';
import { checkAnswer, describe, Finding, Tally } from './oracle.js';
import { fuzzNamespace } from './seeds.js';
import { wireFor, type Wire, type WireRequest, type WireResult } from './wire.js';

export class Session {
  private cluster!: Cluster;
  private wire!: Wire;
  private stderrTail = '';
  tally = new Tally();
  /** Shared with every case's view (a plain field would be copied onto the view on write). */
  private readonly counters = { names: 0 };
  private clusters: Cluster[] = [];
  private starting?: Promise<void>;
  private epoch = 0;
  private caseEpoch?: number;

  constructor(private readonly deadlineMs: number) {}

  get alive(): boolean { return !!this.cluster && this.cluster.proc.exitCode === null && this.cluster.proc.signalCode === null; }

  /** A running server with the fuzz namespace, restarted if a finding killed the last one. */
  ensureServer(): Promise<void> {
    if (this.alive && !this.starting) return Promise.resolve();
    // One start at a time: a case cut off by the time limit may still be running.
    this.starting ??= this.start().finally(() => { this.starting = undefined; });
    return this.starting;
  }

  private async start(): Promise<void> {
    this.wire?.close();
    await this.cluster?.cleanup();
    this.cluster = await startCluster({ controllers: 'none' });
    this.clusters.push(this.cluster);
    this.stderrTail = '';
    this.cluster.proc.stderr!.on('data', (d: Buffer) => { this.stderrTail = (this.stderrTail + d.toString()).slice(-4000); });
    this.wire = wireFor(this.cluster, this.deadlineMs);
    await this.expect({ method: 'POST', path: '/api/v1/namespaces', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: fuzzNamespace } }), anonymous: false }, 201);
  }

  async close(): Promise<void> {
    this.epoch++;
    // A restart begun by a case the time limit abandoned must finish, or its server outlives the suite.
    await this.starting?.catch(() => {});
    this.wire?.close();
    for (const c of this.clusters) await c.cleanup();
  }

  /**
   * The session as one case sees it. fast-check's time limit abandons a case
   * mid-flight without stopping it; once the property is over (`endProperty`),
   * such a case's next request throws instead of mixing into the next property.
   */
  forCase(): Session {
    const view = Object.create(this) as Session;
    view.caseEpoch = this.epoch;
    return view;
  }

  endProperty(): void { this.epoch++; }

  /** A name no earlier case used, so creates do not collide by accident. */
  freshName(base: string): string { return `${base}-${(++this.counters.names).toString(36)}`; }

  /** Sends one request and checks the answer against the oracle; returns it with its parsed JSON body. */
  async send(req: WireRequest): Promise<{ res: WireResult & { kind: 'response' }; json: any }> {
    if (this.caseEpoch !== undefined && this.caseEpoch !== this.epoch) throw new Error('case abandoned at the time limit');
    const res = await this.wire.send(req);
    this.tally.count(res);
    if (res.kind === 'error') await this.exited(500);
    try {
      const json = checkAnswer(req, res, this.alive, this.deadlineMs);
      return { res: res as WireResult & { kind: 'response' }, json };
    } catch (e) {
      if (e instanceof Finding && !this.alive) e.message += `\n  server log tail:\n${this.stderrTail}`;
      throw e;
    }
  }

  /** Sends a request the suite itself needs to succeed with `code`. */
  async expect(req: WireRequest, code: number): Promise<any> {
    const { res, json } = await this.send(req);
    if (res.status !== code) throw new Finding(`expected ${code}\n  ${describe(req, res)}`);
    return json;
  }

  /**
   * The server stored an object at `path`: it must read back, take itself
   * back unchanged (PUT) and take a label (merge patch), both under Strict
   * field validation. An object that
   * fails these is stuck: no client could ever update or repair it.
   */
  async checkStored(path: string, why: string): Promise<void> {
    const get = { method: 'GET', path, headers: { Accept: 'application/json' }, anonymous: false };
    const { res: got, json: obj } = await this.send(get);
    if (got.status !== 200) throw new Finding(`stored object (${why}) does not read back\n  ${describe(get, got)}`);
    // Strict, as kubectl replace and apply send it: upstream drops unknown fields on decode, so what it
    // stored always goes back under Strict; a stored unknown field would make this fail.
    const put = { method: 'PUT', path: `${path}?fieldValidation=Strict`, headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(obj), anonymous: false };
    const { res: putRes } = await this.send(put);
    if (putRes.status !== 200) throw new Finding(`stored object (${why}) cannot be updated with itself\n  ${describe(put, putRes)}`);
    const patch = {
      method: 'PATCH', path: `${path}?fieldValidation=Strict`, headers: { 'Content-Type': 'application/merge-patch+json', Accept: 'application/json' },
      body: JSON.stringify({ metadata: { labels: { 'fuzz.k8ts.io/checked': 'yes' } } }), anonymous: false,
    };
    const { res: patchRes } = await this.send(patch);
    if (patchRes.status !== 200) throw new Finding(`stored object (${why}) cannot take a label\n  ${describe(patch, patchRes)}`);
  }

  /** Resolves when the server exits, or after `ms` if it does not: a dropped connection may be a crash in progress. */
  private exited(ms: number): Promise<void> {
    if (!this.alive) return Promise.resolve();
    const proc = this.cluster.proc;
    return new Promise((resolve) => {
      const done = () => { clearTimeout(timer); proc.off('exit', done); resolve(); };
      const timer = setTimeout(done, ms);
      proc.once('exit', done);
    });
  }
}
