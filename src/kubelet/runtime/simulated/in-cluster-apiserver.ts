/**
 * A pod's HTTPS to the `kubernetes` Service (its name, FQDN, cluster IP or
 * $KUBERNETES_SERVICE_HOST, port 443): the Accessing the Kubernetes API
 * from a Pod page's `curl --cacert ${CACERT} --header "Authorization:
 * Bearer ${TOKEN}" -X GET ${APISERVER}/api`.
 *
 * The simulated container's process is the kubelet's (`k8ts up`, `k8ts
 * agent`), so the request goes over a real TLS connection to the API
 * server at the address the kubelet itself uses (its kubeconfig's server),
 * never to the Service's cluster IP, which no host may send to. The client
 * checks the server as curl does (lib/vtls/openssl.c):
 *
 *  1. -k (--insecure) checks nothing, and reads no CA file.
 *  2. The CA is the --cacert file read from the container (the projected
 *     ca.crt); a file that is not there or holds no certificate is curl's
 *     `(77) error setting certificate file: PATH`. Without --cacert it is
 *     the image's bundle (Mozilla's roots), which never holds a cluster's
 *     own CA: the chain fails as OpenSSL words it (`unable to get local
 *     issuer certificate`).
 *  3. The certificate must name the host the URL used (kube-apiserver's
 *     names kubernetes, kubernetes.default, ...svc, ...svc.cluster.local
 *     and the Service IP, as kubeadm's: pki/cluster.ts, cli/control-plane.ts).
 *
 * busybox 1.28's wget (the DNS examples' image) offers only RSA key
 * exchange (networking/tls.c: AES256-SHA256, AES128-SHA), which
 * kube-apiserver's Go TLS refuses since Go 1.22: the handshake fails with
 * alert 40 whatever k8ts's own server would accept.
 */
import https from 'node:https';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { isIP } from 'node:net';
import { X509Certificate } from 'node:crypto';
import type { HttpOutcome, HttpRequest, HttpResponse } from './http-commands.js';
import { clientRequestHeaders, readResponse } from './http-wire.js';
import { pemBlocks } from '../../../pki/index.js';

/** The Service port the API server is published on (the master service's `https` port). */
export const kubernetesServicePort = 443;

/** OpenSSL's verification failures, whose text curl prints after `SSL certificate problem: `. */
const chainFailures = new Set([
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_SIGNATURE_FAILURE', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_UNTRUSTED', 'CERT_REJECTED',
]);

/** The CA certificates of a PEM file's text, or undefined when it holds none (curl's CURLE_SSL_CACERT_BADFILE). */
function caCertificates(pem: string | undefined): string[] | undefined {
  const valid = pemBlocks(pem ?? '').filter((b) => { try { new X509Certificate(b); return true; } catch { return false; } });
  return valid.length ? valid : undefined;
}

/**
 * The request `req` (already routed to the kubernetes Service's `address`)
 * sent to the API server at `server` (https://HOST:PORT), checked as its
 * client would (req.tls). Outcomes: the answer, a TLS failure, or `connect`
 * when the API server does not answer.
 */
export function apiServerRequest(req: HttpRequest, server: URL, address: string): Promise<HttpOutcome> {
  const t = req.tls ?? {};
  if (t.rsaKeyExchangeOnly) return Promise.resolve({ error: 'tls', address, failure: { kind: 'alert', code: 40, text: 'handshake failure' } });
  // Without --cacert, the image's bundle, which never holds a cluster's CA: none of it can matter, so none is loaded.
  const ca = t.insecure || t.caFile === undefined ? [] : caCertificates(t.caPem);
  if (!ca) return Promise.resolve({ error: 'tls', address, failure: { kind: 'cafile' } });
  const host = req.url.hostname.replace(/^\[|\]$/g, '');
  return new Promise<HttpOutcome>((done) => {
    let timer: NodeJS.Timeout | undefined;
    const resolve = (outcome: HttpOutcome) => { clearTimeout(timer); done(outcome); };
    const r = https.request({
      host: server.hostname.replace(/^\[|\]$/g, ''), port: Number(server.port) || 443, method: req.method, path: `${req.url.pathname}${req.url.search}`,
      headers: clientRequestHeaders(req),
      // SNI names a host, never an address (RFC 6066), as curl sends it.
      ...(isIP(host) ? {} : { servername: host }),
      ca, rejectUnauthorized: !t.insecure,
      // The name the pod's URL used, not the address the kubelet dials.
      checkServerIdentity: (_: string, cert: PeerCertificate) => checkServerIdentity(host, cert),
      // No agent: one connection for this request, closed with it.
      agent: false,
    }, (res) => { readResponse(res).then((response) => resolve({ response, address }), () => resolve({ error: 'connect', address })); });
    r.on('error', (err: NodeJS.ErrnoException) => resolve(tlsOutcome(err, address)));
    // curl -m (else its 300 s connect timeout): an API server that never answers ends the exec all the same.
    if (req.timeoutMs) timer = setTimeout(() => { resolve({ error: 'timeout', address }); r.destroy(); }, req.timeoutMs);
    r.end(req.body);
  });
}

/**
 * A chain whose issuer the client's store lacks, in the words curl 7.88 (OpenSSL 3) prints for it against
 * kube-apiserver, which sends its certificate alone, and with a CA file of another CA (both checked with
 * the machine's curl 7.88.1). Node's OpenSSL calls a lone certificate `unable to verify the first
 * certificate`, and k8ts's own server, which appends the CA it holds for client certificates, a
 * `self-signed certificate in certificate chain`.
 */
const missingIssuer = new Set(['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN']);
const chainDetail = (err: NodeJS.ErrnoException) => missingIssuer.has(err.code!) ? 'unable to get local issuer certificate' : err.message;

function tlsOutcome(err: NodeJS.ErrnoException, address: string): HttpOutcome {
  if (err.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return { error: 'tls', address, failure: { kind: 'name' } };
  if (err.code && chainFailures.has(err.code)) return { error: 'tls', address, failure: { kind: 'chain', detail: chainDetail(err) } };
  return { error: 'connect', address };
}

/** Where the pod's `kubernetes` Service leads. */
export interface InClusterAPIServer {
  /** The API server as the kubelet reaches it: its kubeconfig's server, https://HOST:PORT. */
  server: URL;
  /** The `kubernetes` Service's cluster IP (default namespace), when it exists. */
  serviceIP(): Promise<string | undefined>;
}

/**
 * `podHttp` with https to the kubernetes Service's port 443 sent to the API
 * server (plain http there gets Go's answer to it): the host resolved as the
 * pod's libc would (`resolveName`: its /etc/hosts, the cluster DNS), an
 * address taken as it is. Every other port and host goes to the pod network
 * as before.
 */
export function withInClusterAPIServer(podHttp: (req: HttpRequest) => Promise<HttpOutcome>, resolveName: (host: string) => Promise<string[]>, api: InClusterAPIServer): (req: HttpRequest) => Promise<HttpOutcome> {
  return async (req) => {
    const https = req.url.protocol === 'https:';
    if ((Number(req.url.port) || (https ? 443 : 80)) !== kubernetesServicePort) return podHttp(req);
    const host = req.url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const [serviceIP, address] = await Promise.all([
      api.serviceIP().catch(() => undefined),
      isIP(host) ? host : resolveName(host).then((a) => a[0], () => undefined),
    ]);
    if (!serviceIP || address !== serviceIP) return podHttp(req);
    return https ? apiServerRequest(req, api.server, address) : { response: plainHttpToTLS(), address };
  };
}

/**
 * Plain http to the API server's TLS port (`curl kubernetes:443`): Go's net/http answers a request that is
 * not a TLS handshake with this 400 (server.go), which curl prints as the body.
 */
function plainHttpToTLS(): HttpResponse {
  return { status: 400, statusText: 'Bad Request', httpVersion: '1.0', rawHeaders: [], body: Buffer.from('Client sent an HTTP request to an HTTPS server.\n') };
}
