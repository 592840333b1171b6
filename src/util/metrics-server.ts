/** A plain-HTTP /metrics (and /healthz) endpoint for processes other than the API server. */
import http from 'node:http';
import { Registry, collectDefaultMetrics } from 'prom-client';

export interface MetricsServer { registry: Registry; port: number; close(): Promise<void> }

export async function startMetricsServer(port: number, host = '127.0.0.1', registry = new Registry()): Promise<MetricsServer> {
  collectDefaultMetrics({ register: registry });
  const server = http.createServer((req, res) => {
    if (req.url === '/healthz') { res.end('ok'); return; }
    if (req.url !== '/metrics') { res.statusCode = 404; res.end('not found'); return; }
    registry.metrics().then((text) => { res.setHeader('Content-Type', registry.contentType); res.end(text); },
      (e) => { res.statusCode = 500; res.end(String(e)); });
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, host, () => resolve()); });
  const addr = server.address();
  return {
    registry, port: typeof addr === 'object' && addr ? addr.port : port,
    close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
