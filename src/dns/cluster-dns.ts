/**
 * The cluster DNS add-on assembled: Service and EndpointSlice informers feed
 * ClusterRecords (every change applies as its watch event arrives), the
 * server answers from them and forwards the rest, and readiness waits for
 * both caches (CoreDNS's kubernetes plugin is not ready before its first sync).
 */
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { Registry } from 'prom-client';
import { Clientset, InformerFactory, type ClientConfig } from '../client/index.js';
import type { Logger } from '../util/log.js';
import { ClusterRecords, serviceNameLabel } from '../api/dns/cluster-records.js';
import { ClusterZone } from '../api/dns/cluster-zone.js';
import { Forwarder, type Upstream } from './forwarder.js';
import { DnsMetrics } from './metrics.js';
import { DnsServer } from './server.js';

export interface ClusterDNSOptions {
  client: ClientConfig;
  host: string;
  port: number;
  clusterDomain: string;
  upstreams: Upstream[];
  logger: Logger;
  registry?: Registry;
}

export interface ClusterDNS {
  ready(): boolean;
  records: ClusterRecords;
  close(): Promise<void>;
}

export async function startClusterDNS(o: ClusterDNSOptions): Promise<ClusterDNS> {
  const records = new ClusterRecords(o.clusterDomain.replace(/\.$/, '').toLowerCase());
  let modified = Math.floor(Date.now() / 1000);
  const touched = () => { modified = Math.floor(Date.now() / 1000); };
  const zone = new ClusterZone(records, () => modified);
  const forwarder = new Forwarder({ upstreams: o.upstreams, logger: o.logger.with('forward') });
  const server = new DnsServer({ host: o.host, port: o.port, records, zone, forwarder, logger: o.logger, metrics: o.registry ? new DnsMetrics(o.registry) : undefined });
  await server.start();

  const clients = new Clientset(o.client);
  const informers = new InformerFactory(clients, { logger: o.logger });
  informers.informer('services').addEventHandler({
    add: (s: Service) => { records.setService(s); touched(); },
    update: (_old: Service, s: Service) => { records.setService(s); touched(); },
    delete: (s: Service) => { records.deleteService(s); touched(); },
  });
  informers.informer('endpointslices').addEventHandler({
    add: (e: EndpointSlice) => { records.setSlice(e); touched(); },
    update: (old: EndpointSlice, e: EndpointSlice) => {
      // A slice moved to another Service leaves the first one's records.
      if (old.metadata?.labels?.[serviceNameLabel] !== e.metadata?.labels?.[serviceNameLabel]) records.deleteSlice(old);
      records.setSlice(e);
      touched();
    },
    delete: (e: EndpointSlice) => { records.deleteSlice(e); touched(); },
  });
  informers.start();
  let synced = false;
  void informers.waitForSync().then(() => { synced = true; o.logger.info('caches synced', { services: informers.informer('services').size, endpointslices: informers.informer('endpointslices').size }); });
  return {
    records,
    ready: () => synced,
    close: async () => {
      informers.stop();
      clients.close();
      forwarder.close();
      await server.close();
    },
  };
}
