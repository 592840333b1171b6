/**
 * The node (V8) flags a real node's agent runs with (`k8ts up --runtime cri|process`,
 * `k8ts init` / `join`): the agent is a long-lived process on every node, so memory
 * matters more than peak JavaScript speed (upstream's kubelet is measured the same way,
 * by its resident memory with 100 pods).
 *
 *  - --jitless: V8 interprets bytecode and compiles no machine code. The agent's work
 *    is I/O (CRI gRPC, API requests, files); bench/podstart.ts measured the same agent
 *    CPU per pod with and without it, and about 25 MB less resident memory. It turns
 *    WebAssembly off (undici's fetch needs it; the agent does not use fetch).
 *  - --no-expose-wasm: says so up front, which keeps V8 from printing a warning line
 *    into the agent's JSON log.
 *  - --max-semi-space-size=1 (MB): a small young generation; the agent's allocations
 *    are short request and response objects, and the default (up to 16 MB per
 *    semi-space) mostly holds garbage between scavenges.
 *  - --optimize-for-size: V8 grows the old generation less eagerly and gives memory
 *    back sooner (measured: a median of 74 MB instead of 80 MB with 100 pods, 30 s
 *    after they started).
 *
 * Simulated agents keep the defaults: `k8ts sim` runs thousands of nodes in one process,
 * where the JIT pays.
 */
export const realAgentNodeFlags: readonly string[] = ['--jitless', '--no-expose-wasm', '--max-semi-space-size=1', '--optimize-for-size'];

export function agentNodeFlags(runtime: string): readonly string[] {
  return runtime === 'simulated' ? [] : realAgentNodeFlags;
}
