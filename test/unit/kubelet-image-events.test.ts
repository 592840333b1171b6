/**
 * The image manager's events and durations (pkg/kubelet/images/image_manager.go).
 * The e2e test (test/e2e/cri-image-events.test.ts) covers a present and an
 * unpullable image on a real containerd; a successful pull needs a registry,
 * so its Pulled message is checked here against a CRI image service that
 * answers like containerd's (the image appears once pulled, with its size).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ImageManager } from '../../src/kubelet/runtime/cri/images.js';
import { goDurationMs } from '../../src/kubelet/runtime/pull-events.js';
import type { CRIClient } from '../../src/kubelet/runtime/cri/client.js';

describe('goDurationMs: Go\'s time.Duration String, truncated to milliseconds', () => {
  for (const [ms, want] of [[0, '0s'], [0.4, '0s'], [523, '523ms'], [1000, '1s'], [1200, '1.2s'], [1234.9, '1.234s'], [62_345, '1m2.345s'], [3_600_000, '1h0m0s'], [3_723_050, '1h2m3.05s']] as const) {
    it(`${ms} ms → ${want}`, () => assert.equal(goDurationMs(ms), want));
  }
});

describe('ImageManager events', () => {
  const images = new Map<string, { id: string; size: number }>();
  let clock = 0;
  const client = {
    imageStatus: async (image: string) => (images.has(image) ? { ...images.get(image)!, repoTags: [image], repoDigests: [], pinned: false } : undefined),
    pullImage: async (image: string) => {
      clock += 1234;
      if (image.startsWith('bad/')) throw Object.assign(new Error('x'), { code: 2, details: `failed to pull and unpack image "${image}"` });
      images.set(image, { id: 'sha256:abc', size: 2_178_000 });
      return 'sha256:abc';
    },
  } as unknown as CRIClient;
  const events: string[] = [];
  const sink = (type: string, reason: string, message: string) => { events.push(`${type} ${reason} ${message}`); };
  const mgr = new ImageManager(client, () => clock);
  const sandbox = {} as never;

  it('a pull: Pulling, then Pulled with the time and the image size', async () => {
    const r = await mgr.ensureImageExists('u1', { name: 'c', image: 'example.com/web:1' }, sandbox, sink);
    assert.deepEqual(r, { imageRef: 'sha256:abc', pulled: { ms: 1234 } });
    assert.deepEqual(events.splice(0), [
      'Normal Pulling Pulling image "example.com/web:1"',
      'Normal Pulled Successfully pulled image "example.com/web:1" in 1.234s (1.234s including waiting). Image size: 2178000 bytes.',
    ]);
  });

  it('then present (IfNotPresent, the default for a tag): Pulled already present', async () => {
    await mgr.ensureImageExists('u2', { name: 'c', image: 'example.com/web:1' }, sandbox, sink);
    assert.deepEqual(events.splice(0), ['Normal Pulled Container image "example.com/web:1" already present on machine']);
  });

  it('Always pulls even when present; Never on an absent image is ErrImageNeverPull', async () => {
    await mgr.ensureImageExists('u3', { name: 'c', image: 'example.com/web:1', imagePullPolicy: 'Always' }, sandbox, sink);
    assert.equal(events.splice(0)[0], 'Normal Pulling Pulling image "example.com/web:1"');
    const r = await mgr.ensureImageExists('u3', { name: 'c', image: 'other:1', imagePullPolicy: 'Never' }, sandbox, sink);
    assert.deepEqual(r, { reason: 'ErrImageNeverPull', message: 'Container image "other:1" is not present with pull policy of Never' });
    assert.deepEqual(events.splice(0), ['Warning ErrImageNeverPull Container image "other:1" is not present with pull policy of Never']);
  });

  it('a failed pull: Failed to pull image, then Back-off pulling image until the back-off passes', async () => {
    const r = await mgr.ensureImageExists('u4', { name: 'c', image: 'bad/x:1' }, sandbox, sink);
    assert.deepEqual(r, { reason: 'ErrImagePull', message: 'rpc error: code = Unknown desc = failed to pull and unpack image "bad/x:1"' });
    assert.deepEqual(events.splice(0), ['Normal Pulling Pulling image "bad/x:1"', 'Warning Failed Failed to pull image "bad/x:1": rpc error: code = Unknown desc = failed to pull and unpack image "bad/x:1"']);
    const again = await mgr.ensureImageExists('u4', { name: 'c', image: 'bad/x:1' }, sandbox, sink);
    assert.deepEqual(again, { reason: 'ImagePullBackOff', message: 'Back-off pulling image "bad/x:1"' });
    assert.deepEqual(events.splice(0), ['Normal BackOff Back-off pulling image "bad/x:1"']);
  });
});
