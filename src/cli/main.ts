#!/usr/bin/env node
/** k8ts: one binary, kubeadm-style subcommands. */
import { runServer, serverHelp } from './server.js';
import { runUp, upHelp } from './up.js';
import { runControllerManager, controllerManagerHelp } from './controller-manager-cmd.js';
import { runAgent, agentHelp } from './agent.js';
import { runSim, simHelp } from './sim.js';

interface Command { summary: string; help: string; run(args: string[]): Promise<number> }

const commands: Record<string, Command> = {
  server: { summary: 'Run the API server (with its built-in controllers) on embedded SQLite', help: serverHelp, run: runServer },
  'controller-manager': { summary: 'Run the controllers and the scheduler against an API server', help: controllerManagerHelp, run: runControllerManager },
  agent: { summary: 'Run a node agent (kubelet) that registers a node and runs its pods', help: agentHelp, run: runAgent },
  sim: { summary: 'Run many simulated nodes in one process (scale testing)', help: simHelp, run: runSim },
  up: { summary: 'Start a local cluster in ./.k8ts (the control plane; nodes come with later releases)', help: upHelp, run: runUp },
};

function usage(): string {
  const lines = ['k8ts: a lightweight Kubernetes written in TypeScript', '', 'Usage:', '  k8ts [command] [flags]', '', 'Available Commands:'];
  for (const [name, c] of Object.entries(commands)) lines.push(`  ${name.padEnd(20)} ${c.summary}`);
  lines.push('', 'Use "k8ts [command] --help" for more information about a command.');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') { console.log(usage()); return 0; }
  const cmd = commands[name];
  if (!cmd) { console.error(`Error: unknown command "${name}" for "k8ts"\nRun 'k8ts --help' for usage.`); return 1; }
  if (rest.includes('--help') || rest.includes('-h')) { console.log(cmd.help); return 0; }
  return cmd.run(rest);
}

main(process.argv.slice(2)).then((code) => { if (code !== 0) process.exitCode = code; }, (err) => {
  console.error(`Error: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
