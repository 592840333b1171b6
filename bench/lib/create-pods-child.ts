/**
 * Creates scheduler_perf pod-default pods in one namespace and exits: bench/scheduler.ts runs it as
 * a child process for the measured pods, which upstream creates while its scheduler runs, so that
 * the creating client's CPU is not counted in the scheduler process's (upstream's is one Go
 * process; here the figure of interest is the scheduler's CPU a pod).
 *
 *   node dist/bench/lib/create-pods-child.js KUBECONFIG NAMESPACE PREFIX COUNT CONCURRENCY
 *
 * Prints `created N in MS ms` on stdout when every create has answered 201.
 */
import { ApiClient, readAdminCredentials } from './client.js';
import { runConcurrent } from './load.js';
import { benchPod } from './scheduler-perf-objects.js';

async function main(): Promise<void> {
  const [kubeconfig, namespace, prefix, count, concurrency] = process.argv.slice(2);
  const api = new ApiClient(readAdminCredentials(kubeconfig), Number(concurrency));
  try {
    const { wallMs } = await runConcurrent(0, Number(count), Number(concurrency), async (i) =>
      (await api.expect(201, 'POST', `/api/v1/namespaces/${namespace}/pods`, { body: benchPod(i, prefix, namespace) })).ms);
    console.log(`created ${count} in ${wallMs.toFixed(0)} ms`);
  } finally {
    api.close();
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
