/**
 * `k8ts images`: the images of a node's container runtime, for nodes that
 * pull nothing (the quick-start node of `k8ts up --runtime cri`).
 *
 *  - import: the CRI has no import call, so an OCI or docker archive goes in
 *    through containerd's own client, `ctr -n k8s.io images import` (k8s.io is
 *    the namespace containerd's CRI plugin serves), as `kind load
 *    image-archive` and `k3s ctr images import` do. containerd only;
 *  - list: CRI ListImages, printed as `crictl images` prints it.
 *
 * The endpoint defaults to the private containerd of `k8ts up` in --data-dir
 * when it is running there, else the machine's containerd.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CRIClient } from '../kubelet/runtime/cri/client.js';
import { goGRPCError } from '../kubelet/runtime/cri/index.js';
import type { Image } from '../kubelet/runtime/cri/types.js';
import { containerdLayout } from './containerd/config.js';
import { importImageArchive } from './containerd/images.js';

export const imagesHelp = `Import and list the images of a node's container runtime (containerd).

Usage:
  k8ts images import FILE... [--container-runtime-endpoint unix:///PATH] [--data-dir .k8ts]
  k8ts images list [--container-runtime-endpoint unix:///PATH] [--data-dir .k8ts]

import loads OCI or docker image archives (docker save, skopeo copy oci-archive:,
scripts/images.sh) into containerd's k8s.io namespace with ctr, so pods can use
them without a registry. list shows what the runtime has (CRI ListImages).

Flags:
      --container-runtime-endpoint string   the runtime's socket (default: the private containerd of
                                            \`k8ts up --runtime cri\` in --data-dir if it runs, else
                                            "unix:///run/containerd/containerd.sock")
      --data-dir string                     k8ts up's data directory (default ".k8ts")`;

export async function runImages(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args, strict: true, allowPositionals: true,
    options: { 'container-runtime-endpoint': { type: 'string' }, 'data-dir': { type: 'string', default: '.k8ts' } },
  });
  const [verb, ...files] = positionals;
  const endpoint = values['container-runtime-endpoint'] ?? defaultEndpoint(resolve(values['data-dir']!));
  if (verb === 'import') {
    if (!files.length) { console.error('Error: requires at least 1 arg(s), only received 0'); return 1; }
    if (!endpoint.startsWith('unix://')) { console.error(`Error: import needs containerd's unix socket, not ${endpoint}`); return 1; }
    for (const file of files) process.stdout.write(await importImageArchive(endpoint.slice('unix://'.length), file));
    return 0;
  }
  if (verb === 'list') return listImages(endpoint);
  console.error(`Error: unknown command "${verb ?? ''}" for "k8ts images"\nRun 'k8ts images --help' for usage.`);
  return 1;
}

function defaultEndpoint(dataDir: string): string {
  const socket = containerdLayout(join(dataDir, 'containerd')).socket;
  return existsSync(socket) ? `unix://${socket}` : 'unix:///run/containerd/containerd.sock';
}

async function listImages(endpoint: string): Promise<number> {
  const client = new CRIClient(endpoint);
  let images: Image[];
  try {
    images = await client.listImages();
  } catch (e) {
    console.error(`Error: validate service connection: validate CRI v1 image API for endpoint "${endpoint}": ${goGRPCError(e)}`);
    return 1;
  } finally {
    client.close();
  }
  console.log(imageTable(images));
  return 0;
}

/** crictl images: one row per repo tag (or <none>), the ID's first 13 characters, the size as docker's units.HumanSize. */
export function imageTable(images: Image[]): string {
  const rows = [['IMAGE', 'TAG', 'IMAGE ID', 'SIZE']];
  for (const img of images) {
    const id = img.id.replace(/^sha256:/, '').slice(0, 13);
    const tags = img.repoTags.length ? img.repoTags : ['<none>:<none>'];
    for (const t of tags) {
      const at = t.lastIndexOf(':');
      rows.push([t.slice(0, at), t.slice(at + 1), id, humanSize(Number(img.size))]);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('').trimEnd()).join('\n');
}

/** docker/go-units HumanSize: decimal units, four significant digits. */
export function humanSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let i = 0;
  while (bytes >= 1000 && i < units.length - 1) { bytes /= 1000; i++; }
  return `${Number(bytes.toPrecision(4))}${units[i]}`;
}
