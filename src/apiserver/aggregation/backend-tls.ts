/**
 * How the aggregator talks TLS to an extension API server: the APIService's
 * caBundle verifies the serving certificate for `<service>.<namespace>.svc`
 * (or insecureSkipTLSVerify skips it), and the front-proxy client
 * certificate authenticates the aggregator, as kube-apiserver's
 * --proxy-client-cert-file / --proxy-client-key-file.
 */
import type { APIService } from '../../api/apiregistration.js';

export interface ProxyClientCertificate { certPem: string; keyPem: string }

export function backendTLS(svc: APIService, client: ProxyClientCertificate | undefined, serverName: string) {
  const insecure = svc.spec.insecureSkipTLSVerify === true;
  const ca = svc.spec.caBundle ? Buffer.from(svc.spec.caBundle, 'base64').toString('utf8') : undefined;
  return {
    ...(client ? { cert: client.certPem, key: client.keyPem } : {}),
    ...(insecure ? { rejectUnauthorized: false } : { ca, rejectUnauthorized: true }),
    servername: serverName,
  };
}
