/** Runs one nftables transaction (`nft -f -`): all of it applies, or none of it. */
import { spawn } from 'node:child_process';

export type NftRunner = (script: string) => Promise<void>;

export function nftRunner(binary = 'nft'): NftRunner {
  return (script) => new Promise((resolve, reject) => {
    const child = spawn(binary, ['-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { if (stderr.length < 8192) stderr += d.toString(); });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`nft -f - failed (exit ${code}): ${stderr.trim()}`))));
    child.stdin.on('error', () => { /* nft exited early; its stderr says why */ });
    child.stdin.end(script);
  });
}

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
