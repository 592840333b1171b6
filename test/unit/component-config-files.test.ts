/**
 * The component configuration files kubeadm writes and k8ts reads back:
 * KubeletConfiguration (kubelet-config ConfigMap, /var/lib/kubelet/config.yaml,
 * the agent's --config) and KubeProxyConfiguration (kube-proxy ConfigMap,
 * `k8ts proxy --config`). What is written parses back to itself; bad
 * documents are refused with the field named; the proxy's file replaces its
 * flags except --hostname-override, as upstream's kube-proxy.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultKubeletConfiguration, kubeletConfigurationYAML, parseKubeletConfiguration } from '../../src/cli/kubelet-config-file.js';
import {
  defaultKubeProxyConfiguration, kubeProxyConfigurationYAML, kubeProxyFlagsFromConfig, parseKubeProxyConfiguration,
} from '../../src/cli/kube-proxy-config-file.js';

describe('KubeletConfiguration', () => {
  test('kubeadm\'s default round-trips: clusterDNS at the given address, cluster.local, the static pod path', () => {
    const c = defaultKubeletConfiguration('10.96.0.10');
    assert.deepEqual(parseKubeletConfiguration(kubeletConfigurationYAML(c), 'test'), c);
    assert.deepEqual(c.clusterDNS, ['10.96.0.10']);
    assert.equal(c.clusterDomain, 'cluster.local');
  });
  test('unknown fields of the kind are accepted and dropped', () => {
    const c = parseKubeletConfiguration('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\nclusterDNS: [10.0.0.10, "fd00::a"]\n', 'test');
    assert.deepEqual(c, { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', clusterDNS: ['10.0.0.10', 'fd00::a'] });
  });
  for (const [name, text, error] of [
    ['another kind', 'apiVersion: v1\nkind: ConfigMap\n', /no kind "ConfigMap" is registered for version "v1"/],
    ['not YAML', 'a: [', /failed to decode kubelet configuration from test/],
    ['a scalar', '42', /not an object/],
    ['clusterDNS not an address', 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDNS: [dns.example]\n', /clusterDNS \(--cluster-dns\) \["dns.example"\] must be a list of IP addresses/],
    ['clusterDNS not a list', 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDNS: 10.0.0.10\n', /must be a list of IP addresses/],
    ['clusterDomain not a string', 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDomain: [a]\n', /clusterDomain \(--cluster-domain\) must be a string/],
  ] as const) {
    test(`refuses ${name}`, () => assert.throws(() => parseKubeletConfiguration(text, 'test'), error));
  }
});

describe('KubeProxyConfiguration', () => {
  test('kubeadm\'s default for the nftables mode round-trips and carries the clusterCIDR', () => {
    const c = defaultKubeProxyConfiguration('10.244.0.0/16');
    const back = parseKubeProxyConfiguration(kubeProxyConfigurationYAML(c), 'test');
    assert.equal(back.mode, 'nftables');
    assert.equal(back.clusterCIDR, '10.244.0.0/16');
    assert.deepEqual(back.nodePortAddresses, ['primary']);
    assert.deepEqual(kubeProxyFlagsFromConfig(back, undefined), {
      kubeconfig: undefined, 'hostname-override': undefined, 'cluster-cidr': '10.244.0.0/16', 'nodeport-addresses': 'primary',
      'metrics-bind-address': '127.0.0.1:10249', 'healthz-bind-address': '0.0.0.0:10256', 'min-sync-period': '1s',
    });
  });
  test('mode "" is the default (nftables here); --hostname-override wins over hostnameOverride; the file\'s kubeconfig is used', () => {
    const c = parseKubeProxyConfiguration([
      'apiVersion: kubeproxy.config.k8s.io/v1alpha1', 'kind: KubeProxyConfiguration', 'mode: ""', 'hostnameOverride: from-file',
      'clientConnection: {kubeconfig: /var/lib/kube-proxy/kubeconfig.conf}', 'nftables: {minSyncPeriod: 250ms}', 'conntrack: {maxPerCore: 0}',
      'nodePortAddresses: [10.0.0.0/8, 192.168.0.0/16]',
    ].join('\n'), 'test');
    assert.equal(kubeProxyFlagsFromConfig(c, undefined)['hostname-override'], 'from-file');
    const flags = kubeProxyFlagsFromConfig(c, 'node-a');
    assert.equal(flags['hostname-override'], 'node-a');
    assert.equal(flags.kubeconfig, '/var/lib/kube-proxy/kubeconfig.conf');
    assert.equal(flags['min-sync-period'], '250ms');
    assert.equal(flags['nodeport-addresses'], '10.0.0.0/8,192.168.0.0/16');
  });
  for (const [name, text, error] of [
    ['the iptables mode', 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n', /KubeProxyConfiguration.Mode: Unsupported value: "iptables"/],
    ['another version', 'apiVersion: kubeproxy.config.k8s.io/v1beta9\nkind: KubeProxyConfiguration\n', /no kind "KubeProxyConfiguration" is registered for version "kubeproxy.config.k8s.io\/v1beta9"/],
    ['nodePortAddresses not a list', 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnodePortAddresses: primary\n', /NodePortAddresses: must be a list/],
    ['clusterCIDR not a string', 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 42\n', /clusterCIDR: must be a string/],
  ] as const) {
    test(`refuses ${name}`, () => assert.throws(() => parseKubeProxyConfiguration(text, 'test'), error));
  }
});
