/** ip-command.ts: busybox's `ip addr` and `ip route` in a simulated pod (the Using Source IP tutorial). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ipCommand } from '../../src/kubelet/runtime/simulated/ip-command.js';

describe('simulated ip', () => {
  it('ip addr: lo, then eth0 with the pod\'s /24, the bridge plugin\'s MAC and its EUI-64 link-local address', () => {
    const text = ipCommand(['addr'], '10.244.3.8')!;
    assert.equal(text, [
      '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue qlen 1000',
      '    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00',
      '    inet 127.0.0.1/8 scope host lo',
      '       valid_lft forever preferred_lft forever',
      '    inet6 ::1/128 scope host ',
      '       valid_lft forever preferred_lft forever',
      '3: eth0@if4: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue ',
      '    link/ether 0a:58:0a:f4:03:08 brd ff:ff:ff:ff:ff:ff',
      '    inet 10.244.3.8/24 brd 10.244.3.255 scope global eth0',
      '       valid_lft forever preferred_lft forever',
      '    inet6 fe80::858:aff:fef4:308/64 scope link ',
      '       valid_lft forever preferred_lft forever',
      '',
    ].join('\n'));
    // busybox takes any prefix of the object, and show or list after it.
    for (const args of [['a'], ['address', 'show'], ['addr', 'list'], ['-4', 'addr']]) assert.equal(ipCommand(args, '10.244.3.8'), text, args.join(' '));
  });

  it('ip route: the default route through the node\'s .1 and the pod\'s /24', () => {
    assert.equal(ipCommand(['route'], '10.244.3.8'), 'default via 10.244.3.1 dev eth0 \n10.244.3.0/24 dev eth0 scope link  src 10.244.3.8 \n');
  });

  it('without a pod IP (host network) only lo; other forms are not simulated', () => {
    assert.match(ipCommand(['addr'], undefined)!, /^1: lo: [^]*forever\n$/);
    assert.doesNotMatch(ipCommand(['addr'], undefined)!, /eth0/);
    assert.equal(ipCommand(['link', 'set', 'eth0', 'down'], '10.244.3.8'), undefined);
    assert.equal(ipCommand([], '10.244.3.8'), undefined);
  });
});
