/**
 * CoreDNS's `health` (:8080/health, OK while the process serves) and
 * `ready` (:8181/ready, 200 once every plugin is ready, here: the Service
 * and EndpointSlice caches have synced and the listeners are bound; 503
 * before), which kubeadm's CoreDNS Deployment probes.
 */
import http from 'node:http';

export interface ProbeServer { port: number; close(): Promise<void> }

export async function startProbeServer(host: string, port: number, path: string, ready: () => boolean): Promise<ProbeServer> {
  const server = http.createServer((req, res) => {
    if (req.url !== path) { res.statusCode = 404; res.end('404 page not found\n'); return; }
    const ok = ready();
    res.statusCode = ok ? 200 : 503;
    res.end(ok ? 'OK' : 'not ready');
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, host, () => resolve()); });
  const addr = server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : port,
    close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
