/** nft listings for kube-proxy; the transaction runner lives in util (the NetworkPolicy agent uses it too). */
import { spawn } from 'node:child_process';

export { nftRunner, type NftRunner } from '../util/nft.js';

/** Output of an nft command (listing), or undefined when it fails (e.g. the table does not exist). */
export function nftList(args: string[], binary = 'nft'): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.once('error', () => resolve(undefined));
    child.once('close', (code) => resolve(code === 0 ? out : undefined));
  });
}

/** The names of the chains and sets table `family name` holds now (a restarted proxy cleans up after its predecessor). */
export async function existingObjects(family: string, name: string, binary = 'nft'): Promise<{ chains: string[]; sets: string[] }> {
  const text = await nftList(['-t', '-j', 'list', 'table', family, name], binary);
  if (!text) return { chains: [], sets: [] };
  const items: any[] = JSON.parse(text).nftables ?? [];
  return {
    chains: items.filter((i) => i.chain).map((i) => i.chain.name as string),
    sets: items.filter((i) => i.set).map((i) => i.set.name as string),
  };
}
