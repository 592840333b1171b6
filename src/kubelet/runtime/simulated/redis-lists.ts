/**
 * Redis's list commands on the simulated redis (redis.ts), as the Fine
 * Parallel Processing Using a Work Queue page fills its queue
 * (`rpush job2 "apple"` ... `lrange job2 0 -1`) and its worker library
 * (rediswq.py) drains it: RPUSH, LPUSH, LRANGE, LLEN, LPOP, RPOP (with a
 * count), RPOPLPUSH and LREM, with redis's rules:
 *
 *  1. A key holding a string answers WRONGTYPE; a missing key is an
 *     empty list (LRANGE an empty array, LLEN 0, a pop nil).
 *  2. Indexes may be negative (from the end); LRANGE's are clamped to the
 *     list, and a start past the end gives an empty array.
 *  3. A list left empty by a pop or LREM is deleted, as redis deletes it.
 *  4. A count or index that is no integer: `ERR value is not an integer or
 *     out of range`; a count below zero for a pop: `ERR value is out of
 *     range, must be positive`.
 */
import type { RedisReply } from './redis.js';

export type RedisValue = string | string[];
export type RedisKeys = Map<string, RedisValue>;

export const wrongType: RedisReply = { error: 'WRONGTYPE Operation against a key holding the wrong kind of value' };
const notInteger: RedisReply = { error: 'ERR value is not an integer or out of range' };
const wrongArgs = (name: string): RedisReply => ({ error: `ERR wrong number of arguments for '${name}' command` });

export const listCommands = new Set(['rpush', 'lpush', 'lrange', 'llen', 'lpop', 'rpop', 'rpoplpush', 'lrem']);
/** The list commands that change the keys (a replica refuses them). */
export const listWrites = new Set(['rpush', 'lpush', 'lpop', 'rpop', 'rpoplpush', 'lrem']);

const integer = (s: string | undefined): number | undefined => (s !== undefined && /^-?\d+$/.test(s) ? Number(s) : undefined);

/** The list at `key` (rule 1): undefined when the key holds a string. */
function listAt(keys: RedisKeys, key: string): string[] | undefined {
  const v = keys.get(key);
  if (v === undefined) return [];
  return Array.isArray(v) ? v : undefined;
}

/** Stores `list` at `key`, or deletes the key when it is empty (rule 3). */
function store(keys: RedisKeys, key: string, list: string[]): void {
  if (list.length) keys.set(key, list); else keys.delete(key);
}

function push(keys: RedisKeys, cmd: string, [key, ...values]: string[]): RedisReply {
  if (key === undefined || !values.length) return wrongArgs(cmd);
  const list = listAt(keys, key);
  if (!list) return wrongType;
  // LPUSH puts each value at the head in turn: `lpush k a b` leaves b first.
  if (cmd === 'rpush') list.push(...values); else for (const v of values) list.unshift(v);
  keys.set(key, list);
  return { integer: list.length };
}

function range(keys: RedisKeys, [key, from, to, ...extra]: string[]): RedisReply {
  if (key === undefined || to === undefined || extra.length) return wrongArgs('lrange');
  const [a, b] = [integer(from), integer(to)];
  if (a === undefined || b === undefined) return notInteger;
  const list = listAt(keys, key);
  if (!list) return wrongType;
  const n = list.length;
  const start = Math.max(a < 0 ? n + a : a, 0);
  const end = Math.min(b < 0 ? n + b : b, n - 1);
  return { array: start > end ? [] : list.slice(start, end + 1).map((bulk) => ({ bulk })) };
}

function pop(keys: RedisKeys, cmd: string, [key, count, ...extra]: string[]): RedisReply {
  if (key === undefined || extra.length) return wrongArgs(cmd);
  const n = count === undefined ? undefined : integer(count);
  if (count !== undefined && n === undefined) return notInteger;
  if (n !== undefined && n < 0) return { error: 'ERR value is out of range, must be positive' };
  const list = listAt(keys, key);
  if (!list) return wrongType;
  if (!list.length) return n === undefined ? { bulk: null } : { array: [] };
  const taken = cmd === 'lpop' ? list.splice(0, n ?? 1) : list.splice(Math.max(list.length - (n ?? 1), 0)).reverse();
  store(keys, key, list);
  return n === undefined ? { bulk: taken[0]! } : { array: taken.map((bulk) => ({ bulk })) };
}

function popPush(keys: RedisKeys, [source, destination, ...extra]: string[]): RedisReply {
  if (source === undefined || destination === undefined || extra.length) return wrongArgs('rpoplpush');
  const from = listAt(keys, source);
  const to = listAt(keys, destination);
  if (!from || !to) return wrongType;
  if (!from.length) return { bulk: null };
  const item = from.pop()!;
  store(keys, source, from);
  const target = source === destination ? from : to;
  target.unshift(item);
  keys.set(destination, target);
  return { bulk: item };
}

/** LREM key count element: count > 0 from the head, < 0 from the tail, 0 all. */
function remove(keys: RedisKeys, [key, count, element, ...extra]: string[]): RedisReply {
  if (key === undefined || element === undefined || extra.length) return wrongArgs('lrem');
  const n = integer(count);
  if (n === undefined) return notInteger;
  const list = listAt(keys, key);
  if (!list) return wrongType;
  const order = n < 0 ? [...list.keys()].reverse() : [...list.keys()];
  const drop = new Set(order.filter((i) => list[i] === element).slice(0, n === 0 ? undefined : Math.abs(n)));
  store(keys, key, list.filter((_, i) => !drop.has(i)));
  return { integer: drop.size };
}

export function listCommand(cmd: string, rest: string[], keys: RedisKeys): RedisReply {
  switch (cmd) {
    case 'rpush': case 'lpush': return push(keys, cmd, rest);
    case 'lrange': return range(keys, rest);
    case 'llen': {
      if (rest.length !== 1) return wrongArgs(cmd);
      const list = listAt(keys, rest[0]!);
      return list ? { integer: list.length } : wrongType;
    }
    case 'lpop': case 'rpop': return pop(keys, cmd, rest);
    case 'rpoplpush': return popPush(keys, rest);
    default: return remove(keys, rest);
  }
}
