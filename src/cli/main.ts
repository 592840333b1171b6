#!/usr/bin/env node
/**
 * k8ts: one binary, kubeadm-style subcommands. Each subcommand's module is
 * loaded only when it runs, so `k8ts server` does not pay for loading the
 * simulator or the controller manager's command line.
 */
import { exitWith, runCommand, type CommandModule } from './dispatch.js';
import { loadServer, loadUp } from './start-commands.js';

/** The groups of `k8ts --help`, in order (kubectl's "Basic Commands", "Cluster Management Commands"...). */
const groups = {
  start: 'Start a cluster:',
  kubeadm: 'Build a cluster the kubeadm way:',
  components: 'Run one component:',
  other: 'Other Commands:',
} as const;

interface Command {
  summary: string;
  group: keyof typeof groups;
  /**
   * The command's help and runner. A command whose modules are heavy loads only its usage and flag
   * parser here and the rest once its flags parse (`k8ts init --help` or a bad flag answers at once).
   */
  load(): Promise<CommandModule>;
}

const commands: Record<string, Command> = {
  server: {
    group: 'components',
    summary: 'Run the API server (with its built-in controllers) on embedded SQLite',
    load: loadServer,
  },
  'controller-manager': {
    group: 'components',
    summary: 'Run the controllers and the scheduler against an API server',
    load: async () => { const m = await import('./controller-manager-cmd.js'); return { help: m.controllerManagerHelp, run: m.runControllerManager }; },
  },
  agent: {
    group: 'components',
    summary: 'Run a node agent (kubelet) that registers a node and runs its pods',
    load: async () => { const m = await import('./agent.js'); return { help: m.agentHelp, run: m.runAgent }; },
  },
  sim: {
    group: 'components',
    summary: 'Run many simulated nodes in one process (scale testing)',
    load: async () => { const m = await import('./sim.js'); return { help: m.simHelp, run: m.runSim }; },
  },
  up: {
    group: 'start',
    summary: 'Start a local cluster in ./.k8ts: control plane plus simulated nodes, or one real node (--runtime cri)',
    load: loadUp,
  },
  dns: {
    group: 'components',
    summary: 'Run the cluster DNS server (the Kubernetes DNS specification, as CoreDNS)',
    load: async () => { const m = await import('./dns.js'); return { help: m.dnsHelp, run: m.runDns }; },
  },
  images: {
    group: 'other',
    summary: 'Import and list the images of a node\'s container runtime (containerd)',
    load: async () => { const m = await import('./images.js'); return { help: m.imagesHelp, run: m.runImages }; },
  },
  token: {
    group: 'kubeadm',
    summary: 'Manage bootstrap tokens',
    load: async () => { const m = await import('./token.js'); return { help: m.tokenHelp, run: m.runToken }; },
  },
  scheduler: {
    group: 'components',
    summary: 'Run the scheduler alone against an API server (kube-scheduler)',
    load: async () => { const m = await import('./controller-manager-cmd.js'); return { help: m.schedulerHelp, run: m.runScheduler }; },
  },
  init: {
    group: 'kubeadm',
    summary: 'Run this command in order to set up the Kubernetes control plane (kubeadm init)',
    load: async () => {
      const m = await import('./kubeadm/init-flags.js');
      return { help: m.initHelp, run: async (args) => { m.parseInitFlags(args); return (await import('./kubeadm/init.js')).runInit(args); } };
    },
  },
  join: {
    group: 'kubeadm',
    summary: 'Run this on any machine you wish to join an existing cluster (kubeadm join)',
    load: async () => {
      const m = await import('./kubeadm/join-flags.js');
      return { help: m.joinHelp, run: async (args) => { m.parseJoinFlags(args); return (await import('./kubeadm/join.js')).runJoin(args); } };
    },
  },
  reset: {
    group: 'kubeadm',
    summary: 'Performs a best effort revert of changes made to this host by \'k8ts init\' or \'k8ts join\'',
    load: async () => {
      const m = await import('./kubeadm/reset-flags.js');
      return { help: m.resetHelp, run: async (args) => { m.parseResetFlags(args); return (await import('./kubeadm/reset.js')).runReset(args); } };
    },
  },
  'explain-placement': {
    group: 'other',
    summary: 'Show each scheduler filter\'s verdict on each node for a pod (why here, why not there)',
    load: async () => { const m = await import('./explain-placement.js'); return { help: m.explainPlacementHelp, run: m.runExplainPlacement }; },
  },
  dashboard: {
    group: 'other',
    summary: 'Serve the dashboard locally with a kubeconfig\'s credentials (client certificate or token), as kubectl proxy',
    load: async () => { const m = await import('./dashboard.js'); return { help: m.dashboardHelp, run: m.runDashboard }; },
  },
  proxy: {
    group: 'components',
    summary: 'Run kube-proxy (nftables mode): program this node\'s Service rules',
    load: async () => { const m = await import('./proxy.js'); return { help: m.proxyHelp, run: m.runProxy }; },
  },
  version: {
    group: 'other',
    summary: 'Print the version of k8ts and of the Kubernetes API it serves',
    load: async () => ({
      help: 'Print the version of k8ts and of the Kubernetes API it serves.\n\nUsage:\n  k8ts version',
      run: async (args) => {
        if (args.length) throw Object.assign(new Error(`Unexpected argument '${args[0]}'`), { code: 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' });
        const { versionInfo, k8tsVersion, kubernetesVersion } = await import('../apiserver/version.js');
        console.log(`k8ts ${k8tsVersion} (Kubernetes API ${kubernetesVersion}, ${versionInfo().goVersion}, ${versionInfo().platform})`);
        return 0;
      },
    }),
  },
  completion: {
    group: 'other',
    summary: 'Output shell completion code for the specified shell (bash or zsh)',
    load: async () => {
      const m = await import('./completion.js');
      const named = Object.entries(commands).map(([name, c]) => ({ name, help: async () => (await c.load()).help }));
      return { help: m.completionHelp, run: (args) => m.runCompletion(args, named) };
    },
  },
  etcd: {
    group: 'other',
    summary: 'Save and restore snapshots of the etcd a cluster stores its objects in (etcdctl snapshot)',
    load: async () => { const m = await import('./etcd/index.js'); return { help: m.etcdHelp, run: m.runEtcd }; },
  },
  datastore: {
    group: 'other',
    summary: 'Export a cluster\'s objects from its datastore and import them into another (SQLite to etcd)',
    load: async () => { const m = await import('./datastore.js'); return { help: m.datastoreHelp, run: m.runDatastore }; },
  },
  lab: {
    group: 'start',
    summary: 'Make several kubeadm-style machines on this host (network namespaces with containerd): up, exec, status, down',
    load: async () => { const m = await import('./lab/index.js'); return { help: m.labHelp, run: m.runLab }; },
  },
  supervise: {
    group: 'kubeadm',
    summary: 'Run a command, restarting it when it exits (init and join use it where there is no systemd)',
    load: async () => { const m = await import('./kubeadm/supervisor.js'); return { help: m.superviseHelp, run: m.runSupervise }; },
  },
};

function usage(): string {
  const lines = ['k8ts: a lightweight Kubernetes written in TypeScript', ''];
  for (const [group, title] of Object.entries(groups)) {
    lines.push(title);
    for (const [name, c] of Object.entries(commands)) if (c.group === group) lines.push(`  ${name.padEnd(20)} ${c.summary}`);
    lines.push('');
  }
  lines.push('Usage:', '  k8ts [command] [flags]', '', 'Use "k8ts [command] --help" for more information about a command.');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') { console.log(usage()); return 0; }
  const cmd = commands[name];
  if (!cmd) { console.error(`Error: unknown command "${name}" for "k8ts"\nRun 'k8ts --help' for usage.`); return 1; }
  return runCommand(name, cmd.load, rest);
}

exitWith(main(process.argv.slice(2)));
