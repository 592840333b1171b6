/**
 * securityContext.readOnlyRootFilesystem in a simulated container's layer
 * (runtime/simulated/layer.ts): writes to the root fail as busybox reports
 * EROFS, while writable volumes and /dev take them; a volume mount that is
 * read-only stays so, though the volume itself is writable.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { emptyLayer, withWritableLayer } from '../../src/kubelet/runtime/simulated/layer.js';
import type { ContainerView } from '../../src/kubelet/runtime/simulated/program.js';

const base: ContainerView = {
  env: new Map(), hostname: 'ro-demo', workingDir: '/',
  readFile: () => undefined,
  listDir: (p) => (['/', '/tmp', '/dev', '/etc', '/etc/config'].includes(p) ? [] : undefined),
  refresh: async () => {},
};

describe('a read-only root filesystem', () => {
  const scratch = emptyLayer();
  const view = withWritableLayer(base, emptyLayer(), ['/', '/etc/config'], [{ mountPath: '/tmp', volume: scratch }, { mountPath: '/etc/config', volume: emptyLayer() }]);

  it('refuses writes, directories and removals on the root and read-only mounts', () => {
    assert.equal(view.writeFile!('/foo', Buffer.from('x')), 'Read-only file system');
    assert.equal(view.writeFile!('/etc/hosts', Buffer.from('x')), 'Read-only file system');
    assert.equal(view.writeFile!('/data', undefined), 'Read-only file system');
    assert.equal(view.writeFile!('/etc/config/k', Buffer.from('x')), 'Read-only file system');
    assert.equal(view.removeFile!('/etc/passwd', false), 'Read-only file system');
  });

  it('writes into a writable volume mounted below the root, and into /dev', () => {
    assert.equal(view.writeFile!('/tmp/x', Buffer.from('hi')), undefined);
    assert.equal(scratch.files.get('/x')?.toString(), 'hi');
    assert.equal(view.writeFile!('/dev/termination-log', Buffer.from('bye')), undefined);
  });

  it('without it, the root takes writes', () => {
    const rw = withWritableLayer(base, emptyLayer(), ['/etc/config']);
    assert.equal(rw.writeFile!('/foo', Buffer.from('x')), undefined);
    assert.equal(rw.writeFile!('/etc/config/k', Buffer.from('x')), 'Read-only file system');
  });
});
