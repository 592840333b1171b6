/**
 * Running the node agent (and, for now, the control plane) as a service, as
 * kubeadm relies on kubelet.service: with systemd (PID 1, and the real root as
 * prefix) a unit NAME.service is written to /etc/systemd/system and enabled;
 * otherwise `k8ts supervise` keeps the command running in the background,
 * restarting it when it exits, with a pid file and a log file.
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { k8tsMain } from './manifests.js';
import type { NodeLayout } from './layout.js';

export const KUBELET_SERVICE = 'k8ts-kubelet';
const UNIT_DIR = '/etc/systemd/system';

export interface ServiceHandle { kind: 'systemd' | 'supervised'; howToStop: string }

/** systemd manages this machine, and the layout is the machine's own (not a test's prefix). */
export function hasSystemd(layout: NodeLayout): boolean {
  return layout.prefix === '/' && existsSync('/run/systemd/system');
}

const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`);

/** Starts `node NODEFLAGS k8ts ARGS` as the service NAME; returns how to stop it. */
export function startService(layout: NodeLayout, name: string, k8tsArgs: string[], nodeFlags: readonly string[] = []): ServiceHandle {
  const command = [process.execPath, ...nodeFlags, k8tsMain(), ...k8tsArgs];
  if (hasSystemd(layout)) {
    writeFileSync(`${UNIT_DIR}/${name}.service`, [
      '[Unit]', `Description=k8ts ${name} (written by k8ts init/join)`, 'Wants=network-online.target', 'After=network-online.target', '',
      '[Service]', `ExecStart=${command.map(quote).join(' ')}`, 'Restart=always', 'RestartSec=1', '',
      '[Install]', 'WantedBy=multi-user.target', '',
    ].join('\n'));
    execFileSync('systemctl', ['daemon-reload']);
    execFileSync('systemctl', ['enable', '--now', `${name}.service`]);
    return { kind: 'systemd', howToStop: `systemctl stop ${name}` };
  }
  const pidFile = layout.pidFile(name);
  const logFile = layout.logFile(name);
  mkdirSync(dirname(pidFile), { recursive: true });
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a', 0o600);
  const child = spawn(process.execPath, [k8tsMain(), 'supervise', `--pid-file=${pidFile}`, '--', ...command], { detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  child.unref();
  // The supervisor writes the pid file itself; writing it here too closes the window before it starts.
  writeFileSync(pidFile, `${child.pid}\n`);
  return { kind: 'supervised', howToStop: `kill $(cat ${pidFile})` };
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/** The supervised service's pid when it runs. */
export function servicePid(layout: NodeLayout, name: string): number | undefined {
  try {
    const pid = Number(readFileSync(layout.pidFile(name), 'utf8').trim());
    return pid > 0 && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Stops and disables the service; resolves once it has exited. Returns whether one was running. */
export async function stopService(layout: NodeLayout, name: string, timeoutMs = 60_000): Promise<boolean> {
  if (hasSystemd(layout) && existsSync(`${UNIT_DIR}/${name}.service`)) {
    try { execFileSync('systemctl', ['disable', '--now', `${name}.service`], { stdio: 'ignore' }); } catch { /* already stopped */ }
    rmSync(`${UNIT_DIR}/${name}.service`, { force: true });
    try { execFileSync('systemctl', ['daemon-reload'], { stdio: 'ignore' }); } catch { /* best effort, as kubeadm reset */ }
    return true;
  }
  const pid = servicePid(layout, name);
  rmSync(layout.pidFile(name), { force: true });
  if (pid === undefined) return false;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) { process.kill(pid, 'SIGKILL'); break; }
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}
