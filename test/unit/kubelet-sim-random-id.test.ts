/** The simulated runtime's sandbox and container IDs (random-id.ts) and image IDs (images.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newRuntimeID } from '../../src/kubelet/runtime/simulated/random-id.js';
import { simulatedImageID } from '../../src/kubelet/runtime/simulated/images.js';

describe('newRuntimeID', () => {
  it('is 64 hex digits, as containerd IDs, and never repeats across pool refills', () => {
    const seen = new Set<string>();
    // 1,000 IDs: the 4 KiB pool (128 IDs) is refilled several times.
    for (let i = 0; i < 1000; i++) {
      const id = newRuntimeID();
      assert.match(id, /^[0-9a-f]{64}$/);
      assert.ok(!seen.has(id), `ID ${id} repeated after ${i} draws`);
      seen.add(id);
    }
  });
});

describe('simulatedImageID', () => {
  it('answers the same ID for the same image on every call (the second from its memo)', () => {
    const first = simulatedImageID('gasbugs/http-go');
    assert.match(first, /^docker\.io\/gasbugs\/http-go@sha256:[0-9a-f]{64}$/);
    assert.equal(simulatedImageID('gasbugs/http-go'), first);
    assert.equal(simulatedImageID('docker.io/gasbugs/http-go:latest'), first);
    assert.notEqual(simulatedImageID('gasbugs/http-go:v2'), first);
  });
});
