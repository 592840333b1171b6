/**
 * `k8ts token create|list|delete|generate`: kubeadm's token verbs with its
 * flags, output and error words (an error is followed by kubeadm's hint
 * about --v=5 and exits 1).
 */
import { parseArgs } from 'node:util';
import { Clientset, loadKubeconfig } from '../client/index.js';
import { defaultTokenGroups, defaultTokenUsages, generateBootstrapToken } from '../api/bootstraptoken/index.js';
import { createToken, deleteTokens, joinWorkerCommandFromKubeconfig, listTokens, tokenToCreate } from '../kubeadm/token/index.js';
import { parseDuration } from './duration.js';
import { flagErrorMessage } from './flag-errors.js';

const defaultKubeconfig = '/etc/kubernetes/admin.conf';

export const tokenHelp = `This command manages bootstrap tokens. It is optional and needed only for advanced use cases.

In short, bootstrap tokens are used for establishing bidirectional trust between a client and a server.
A bootstrap token can be used when a client (for example a node that is about to join the cluster) needs
to trust the server it is talking to. Then a bootstrap token with the "signing" usage can be used.
bootstrap tokens can also function as a way to allow short-lived authentication to the API Server
(the token serves as a way for the API Server to trust the client), for example for doing the TLS Bootstrap.

What is a bootstrap token more exactly?
 - It is a Secret in the kube-system namespace of type "bootstrap.kubernetes.io/token".
 - A bootstrap token must be of the form "[a-z0-9]{6}.[a-z0-9]{16}". The former part is the public token ID,
   while the latter is the Token Secret and it must be kept private at all circumstances!
 - The name of the Secret must be named "bootstrap-token-(token-id)".

Usage:
  k8ts token [flags]
  k8ts token [command]

Available Commands:
  create      Create bootstrap tokens on the server
  delete      Delete bootstrap tokens on the server
  generate    Generate and print a bootstrap token, but do not create it on the server
  list        List bootstrap tokens on the server

Flags:
      --kubeconfig string   The kubeconfig file to use when talking to the cluster. (default "${defaultKubeconfig}")

Create flags:
      --description string       A human friendly description of how this token is used.
      --groups strings           Extra groups that this token will authenticate as when used for authentication. Must match "\\\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\\\z" (default [system:bootstrappers:kubeadm:default-node-token])
      --print-join-command       Instead of printing only the token, print the full 'kubeadm join' flag needed to join the cluster using the token.
      --ttl duration             The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire (default 24h0m0s)
      --usages strings           Describes the ways in which this token can be used. You can pass --usages multiple times or provide a comma separated list of options. Valid options: [signing,authentication] (default [signing,authentication])`;

/** kubeadm's CheckErr: the message, then the hint, on stderr; exit code 1. */
function fail(err: unknown): number {
  process.stderr.write(`${flagErrorMessage(err) ?? (err instanceof Error ? err.message : String(err))}\nTo see the stack trace of this error execute with --v=5 or higher\n`);
  return 1;
}

/** ClientSetFromFile, with Go's words for a missing file. */
function clientsFrom(path: string): Clientset {
  try {
    return new Clientset(loadKubeconfig(path));
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOENT' ? `open ${path}: no such file or directory` : err.message;
    throw new Error(`failed to load admin kubeconfig: ${why}`);
  }
}

/** pflag's StringSlice: every use appends comma-separated values; the default holds until the first use. */
const stringSlice = (uses: string[] | undefined, dflt: string[]) => (uses === undefined ? dflt : uses.flatMap((u) => (u === '' ? [] : u.split(','))));

async function runCreate(args: string[], kubeconfig: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args, strict: true, allowPositionals: true,
    options: {
      ttl: { type: 'string', default: '24h0m0s' }, usages: { type: 'string', multiple: true }, groups: { type: 'string', multiple: true },
      description: { type: 'string' }, 'print-join-command': { type: 'boolean', default: false },
    },
  });
  let ttlMs: number;
  try { ttlMs = parseDuration(values.ttl!); } catch { return fail(`invalid argument "${values.ttl}" for "--ttl" flag: time: invalid duration "${values.ttl}"`); }
  try {
    const bt = tokenToCreate({
      token: positionals[0], ttlMs, usages: stringSlice(values.usages, defaultTokenUsages), groups: stringSlice(values.groups, defaultTokenGroups),
      description: values.description,
    });
    const clients = clientsFrom(kubeconfig);
    try {
      const token = await createToken(clients, bt, new Date());
      if (!values['print-join-command']) { console.log(token); return 0; }
      try { console.log(joinWorkerCommandFromKubeconfig(kubeconfig, token)); } catch (e) { throw new Error(`failed to get join command: ${(e as Error).message}`); }
      return 0;
    } finally { clients.close(); }
  } catch (e) { return fail(e); }
}

async function withClients(kubeconfig: string, run: (c: Clientset) => Promise<void>): Promise<number> {
  try {
    const clients = clientsFrom(kubeconfig);
    try { await run(clients); } finally { clients.close(); }
    return 0;
  } catch (e) { return fail(e); }
}

export async function runToken(argv: string[]): Promise<number> {
  // --kubeconfig is a persistent flag: it may come before or after the subcommand.
  let kubeconfig = defaultKubeconfig;
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--kubeconfig') kubeconfig = argv[++i] ?? '';
    else if (a.startsWith('--kubeconfig=')) kubeconfig = a.slice('--kubeconfig='.length);
    else args.push(a);
  }
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': return runCreate(rest, kubeconfig);
    case 'list':
      if (rest.length) return fail(`unknown command "${rest[0]}" for "k8ts token list"`);
      return withClients(kubeconfig, async (c) => {
        const { out, errors } = await listTokens(c, new Date());
        process.stdout.write(out);
        if (errors) process.stderr.write(errors);
      });
    case 'delete': return withClients(kubeconfig, (c) => deleteTokens(c, rest, (line) => console.log(line)));
    case 'generate':
      if (rest.length) return fail(`unknown command "${rest[0]}" for "k8ts token generate"`);
      console.log(generateBootstrapToken());
      return 0;
    case undefined: console.log(tokenHelp); return 0;
    default: return fail(`unknown command "${sub}" for "k8ts token"`);
  }
}
