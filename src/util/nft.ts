/** Runs one nftables transaction (`nft -f -`): all of it applies, or none of it. Shared by kube-proxy and the NetworkPolicy agent. */
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
