/** The DNS server's Prometheus metrics, under CoreDNS's names so its dashboards read them. */
import { Counter, Registry } from 'prom-client';

export class DnsMetrics {
  readonly requests: Counter<'proto'>;
  readonly responses: Counter<'rcode'>;
  readonly cacheHits: Counter;
  readonly cacheMisses: Counter;
  readonly forwardRequests: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.requests = new Counter({ name: 'coredns_dns_requests_total', help: 'Counter of DNS requests made per protocol.', labelNames: ['proto'], registers });
    this.responses = new Counter({ name: 'coredns_dns_responses_total', help: 'Counter of response status codes.', labelNames: ['rcode'], registers });
    this.cacheHits = new Counter({ name: 'coredns_cache_hits_total', help: 'The count of cache hits.', registers });
    this.cacheMisses = new Counter({ name: 'coredns_cache_misses_total', help: 'The count of cache misses.', registers });
    this.forwardRequests = new Counter({ name: 'coredns_forward_requests_total', help: 'Counter of requests made per upstream.', registers });
  }
}
