/**
 * `k8ts lab down`: removes everything `lab up` made, also after a half-made up: on each
 * machine `k8ts reset --force` (stops its kubelet and control plane, removes its pods'
 * containers), its containerd (sandboxes, process, shims, mounts), whatever still runs in its
 * namespace, the namespace itself (its interfaces, addresses, routes and nftables tables go
 * with it), the switch, and the lab's directory. Best effort: one step failing does not keep
 * the others from running; what could not be removed is reported.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { stopContainerdByPid } from '../containerd/launch.js';
import { captureOnMachine } from './exec.js';
import { deleteNetns, netnsList } from './machine.js';
import { readLab } from './state.js';

export async function labDown(dirArg: string): Promise<number> {
  const dir = resolve(dirArg);
  const lab = readLab(dir);
  if (!lab) { console.log(`[lab] no lab in ${dir}: nothing to remove`); return 0; }
  const problems: string[] = [];
  const step = async (what: string, fn: () => Promise<unknown>) => {
    try { await fn(); } catch (err) { problems.push(`${what}: ${(err as Error).message}`); }
  };
  const existing = new Set(await netnsList());
  for (const m of [...lab.machines].reverse()) {
    if (existing.has(m.netns) && m.criSocket) {
      await step(`reset on ${m.name}`, async () => {
        const r = await captureOnMachine(m, ['k8ts', 'reset', '--force']);
        if (r.code !== 0) throw new Error(r.stderr.trim());
      });
    }
    if (m.containerdPid) await step(`containerd of ${m.name}`, () => stopContainerdByPid(m.containerdPid!, m.containerdDir));
    await step(`namespace ${m.netns}`, () => deleteNetns(m.netns));
    console.log(`[lab] removed machine ${m.name}`);
  }
  await step(`namespace ${lab.switchNetns}`, () => deleteNetns(lab.switchNetns));
  await step(`directory ${dir}`, async () => rmSync(dir, { recursive: true, force: true }));
  for (const p of problems) console.error(`[lab] could not remove ${p}`);
  console.log(problems.length ? '[lab] down, with the problems above' : '[lab] down: no namespace, bridge, containerd or file of the lab is left');
  return problems.length ? 1 : 0;
}
