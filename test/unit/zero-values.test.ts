/** Null list items and map values become Go's zero values of their element type, as upstream's decoding leaves them. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fillNullItems } from '../../src/api/schema/index.js';

const cases: { name: string; key: string; obj: any; want: any }[] = [
  { name: 'a null toleration becomes an empty one', key: 'v1/Pod', obj: { spec: { tolerations: [{ key: 'a' }, null] } }, want: { spec: { tolerations: [{ key: 'a' }, {}] } } },
  { name: 'null strings in a string list become ""', key: 'v1/Pod', obj: { spec: { containers: [{ name: 'c', args: [null, 'x'] }] } }, want: { spec: { containers: [{ name: 'c', args: ['', 'x'] }] } } },
  { name: 'a null container deep in a template', key: 'apps/v1/DaemonSet', obj: { spec: { template: { spec: { containers: [null] } } } }, want: { spec: { template: { spec: { containers: [{}] } } } } },
  { name: 'null map values of a string map become ""', key: 'v1/ConfigMap', obj: { data: { a: null } }, want: { data: { a: '' } } },
  { name: 'null quantities become "0"', key: 'v1/Node', obj: { status: { capacity: { cpu: null } } }, want: { status: { capacity: { cpu: '0' } } } },
  { name: 'null integers in a list become 0', key: 'v1/Pod', obj: { spec: { securityContext: { supplementalGroups: [null] } } }, want: { spec: { securityContext: { supplementalGroups: [0] } } } },
  { name: 'null fields stay null (Go leaves them nil)', key: 'v1/Pod', obj: { spec: { tolerations: null, nodeSelector: null } }, want: { spec: { tolerations: null, nodeSelector: null } } },
  { name: 'unknown fields and unknown kinds are left alone', key: 'v1/Nope', obj: { x: [null] }, want: { x: [null] } },
  { name: 'values of the wrong type are left to the type checks', key: 'v1/Pod', obj: { spec: { tolerations: { a: null } } }, want: { spec: { tolerations: { a: null } } } },
];

describe('fillNullItems', () => {
  for (const c of cases) {
    it(c.name, () => {
      fillNullItems(c.key, c.obj);
      assert.deepEqual(c.obj, c.want);
    });
  }
});
