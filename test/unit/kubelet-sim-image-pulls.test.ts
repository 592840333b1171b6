import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from 'kubernetes-types/core/v1.js';
import { NodeImages, simulatedImageSize } from '../../src/kubelet/runtime/simulated/image-pulls.js';

describe('simulated image pulls follow imagePullPolicy as the kubelet\'s image manager', () => {
  const pulls = (node: NodeImages, c: Partial<Container>) => !!node.pullFor({ name: 'c', ...c });
  const cases: { name: string; starts: Partial<Container>[]; want: boolean[] }[] = [
    { name: 'IfNotPresent (a tag): the node\'s first use only', starts: [{ image: 'nginx:1.27' }, { image: 'nginx:1.27' }], want: [true, false] },
    { name: 'the same image however it is named', starts: [{ image: 'nginx:1.27' }, { image: 'docker.io/library/nginx:1.27' }], want: [true, false] },
    { name: 'another tag is another image', starts: [{ image: 'nginx:1.27' }, { image: 'nginx:1.26' }], want: [true, true] },
    { name: 'no tag (latest): Always, every start', starts: [{ image: 'nginx' }, { image: 'nginx' }, { image: 'nginx:latest' }], want: [true, true, true] },
    { name: 'Always on a tag: every start', starts: [{ image: 'busybox:1.36', imagePullPolicy: 'Always' }, { image: 'busybox:1.36', imagePullPolicy: 'Always' }], want: [true, true] },
    { name: 'Never: no pull', starts: [{ image: 'busybox:1.36', imagePullPolicy: 'Never' }], want: [false] },
    { name: 'IfNotPresent on latest: the first use only', starts: [{ image: 'nginx', imagePullPolicy: 'IfNotPresent' }, { image: 'nginx', imagePullPolicy: 'IfNotPresent' }], want: [true, false] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const node = new NodeImages();
      assert.deepEqual(c.starts.map((s) => pulls(node, s)), c.want);
    });
  }
  it('a pull takes no time and reports a stable made-up size', () => {
    const pulled = new NodeImages().pullFor({ name: 'c', image: 'nginx' });
    assert.deepEqual(pulled, { ms: 0, size: simulatedImageSize('docker.io/library/nginx:latest') });
    assert.ok(pulled!.size >= 2_000_000 && pulled!.size < 130_000_000);
  });
});
