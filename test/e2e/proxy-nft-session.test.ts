/**
 * The long-lived `nft -i` that runs kube-proxy's fast transactions
 * (src/util/nft-session.ts), against the real nft and kernel in a network
 * namespace this test creates: one line is one all-or-nothing transaction,
 * an error is reported for its own transaction and the session goes on, and a
 * closed session is replaced by the next transaction.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { NftSession } from '../../src/util/nft-session.js';

describe('NftSession: kube-proxy\'s long-lived nft -i', () => {
  const ns = `k8ts-nftsess-${randomBytes(3).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-nftsess-'));
  const wrapper = join(dir, 'nft');
  const list = () => execFileSync('ip', ['netns', 'exec', ns, 'nft', 'list', 'table', 'ip', 'sess'], { encoding: 'utf8' });
  let session: NftSession;

  before(() => {
    execFileSync('ip', ['netns', 'add', ns]);
    // The session runs `<binary> -i`: this binary is nft inside the test's namespace.
    writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${ns} nft "$@"\n`);
    chmodSync(wrapper, 0o755);
    session = new NftSession(wrapper);
  });
  after(() => {
    session.close();
    execFileSync('ip', ['netns', 'del', ns]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a multi-line script (a chain with its rules in a block) as one transaction', async () => {
    await session.run('add table ip sess\nadd chain ip sess a {\n  ip saddr 10.0.0.1 counter\n  ip daddr 10.0.0.2 drop\n}\n');
    assert.match(list(), /chain a \{\s*ip saddr 10\.0\.0\.1 counter packets 0 bytes 0\s*ip daddr 10\.0\.0\.2 drop\s*\}/);
  });

  it('reports a failed transaction as its own error, applies none of it, and keeps going', async () => {
    await assert.rejects(session.run('add chain ip sess b\nadd rule ip sess nosuchchain counter\n'), /nft -i failed: .*No such file or directory/s);
    assert.doesNotMatch(list(), /chain b/, 'the transaction is all or nothing');
    await session.run('add chain ip sess c\n');
    assert.match(list(), /chain c/);
  });

  it('runs transactions in the order they were given, also when they are queued at once', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => session.run(`add chain ip sess q${i}\n`)));
    await session.run('add chain ip sess q0 {\n  counter\n}\n');
    const text = list();
    for (let i = 0; i < 20; i++) assert.match(text, new RegExp(`chain q${i} \\{`));
    assert.match(text, /chain q0 \{\s*counter/);
  });

  it('starts a new nft when the session was closed', async () => {
    session.close();
    await session.run('add chain ip sess d\n');
    assert.match(list(), /chain d/);
  });
});
