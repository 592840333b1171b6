/** The simulated redis's list commands (src/kubelet/runtime/simulated/redis-lists.ts), in redis's words. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listCommand, type RedisKeys } from '../../src/kubelet/runtime/simulated/redis-lists.js';

describe('simulated redis lists', () => {
  it('RPUSH answers the new length; LRANGE 0 -1 lists the queue in order; negative and clamped indexes', () => {
    const keys: RedisKeys = new Map();
    assert.deepEqual(['apple', 'banana', 'cherry'].map((f) => listCommand('rpush', ['job2', f], keys)), [{ integer: 1 }, { integer: 2 }, { integer: 3 }]);
    assert.deepEqual(listCommand('lrange', ['job2', '0', '-1'], keys), { array: [{ bulk: 'apple' }, { bulk: 'banana' }, { bulk: 'cherry' }] });
    assert.deepEqual(listCommand('lrange', ['job2', '-2', '100'], keys), { array: [{ bulk: 'banana' }, { bulk: 'cherry' }] });
    assert.deepEqual(listCommand('lrange', ['job2', '5', '10'], keys), { array: [] });
    assert.deepEqual(listCommand('lrange', ['nothing', '0', '-1'], keys), { array: [] });
    assert.deepEqual(listCommand('lpush', ['job2', 'x', 'y'], keys), { integer: 5 });
    assert.deepEqual(listCommand('lrange', ['job2', '0', '1'], keys), { array: [{ bulk: 'y' }, { bulk: 'x' }] });
    assert.deepEqual(listCommand('llen', ['job2'], keys), { integer: 5 });
  });

  it('pops from either end, with a count; an emptied list is deleted; a missing one pops nil', () => {
    const keys: RedisKeys = new Map([['q', ['a', 'b', 'c', 'd']]]);
    assert.deepEqual(listCommand('lpop', ['q'], keys), { bulk: 'a' });
    assert.deepEqual(listCommand('rpop', ['q', '2'], keys), { array: [{ bulk: 'd' }, { bulk: 'c' }] });
    assert.deepEqual(listCommand('rpoplpush', ['q', 'processing'], keys), { bulk: 'b' });
    assert.equal(keys.has('q'), false);
    assert.deepEqual(keys.get('processing'), ['b']);
    assert.deepEqual(listCommand('lpop', ['q'], keys), { bulk: null });
    assert.deepEqual(listCommand('lrem', ['processing', '0', 'b'], keys), { integer: 1 });
    assert.equal(keys.has('processing'), false);
  });

  it('LREM counts from the head, from the tail, or removes all', () => {
    const keys: RedisKeys = new Map([['l', ['a', 'b', 'a', 'c', 'a']]]);
    assert.deepEqual(listCommand('lrem', ['l', '-1', 'a'], keys), { integer: 1 });
    assert.deepEqual(keys.get('l'), ['a', 'b', 'a', 'c']);
    assert.deepEqual(listCommand('lrem', ['l', '1', 'a'], keys), { integer: 1 });
    assert.deepEqual(keys.get('l'), ['b', 'a', 'c']);
  });

  it('errors as redis words them: a string key, arity, integers', () => {
    const keys: RedisKeys = new Map([['s', 'text']]);
    const wrongType = { error: 'WRONGTYPE Operation against a key holding the wrong kind of value' };
    assert.deepEqual(listCommand('rpush', ['s', 'x'], keys), wrongType);
    assert.deepEqual(listCommand('lrange', ['s', '0', '-1'], keys), wrongType);
    assert.deepEqual(listCommand('rpush', ['q'], keys), { error: "ERR wrong number of arguments for 'rpush' command" });
    assert.deepEqual(listCommand('lrange', ['q', 'a', '1'], keys), { error: 'ERR value is not an integer or out of range' });
    assert.deepEqual(listCommand('lpop', ['q', '-1'], keys), { error: 'ERR value is out of range, must be positive' });
  });
});
