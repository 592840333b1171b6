/**
 * kubernetes.io's Accessing the Kubernetes API from a Pod
 * (tasks/run-application/access-api-from-pod), as a newcomer runs it on
 * `npm start`'s simulated nodes with the real kubectl: the page's commands
 * in a pod, whose curl goes over real HTTPS to the real API server
 * (runtime/simulated/in-cluster-apiserver.ts), checking its certificate
 * against the projected ca.crt and authenticating with the projected token.
 * Then what the Service-account pages and tutorials do from a pod: `curl -k`
 * with the token (403 for the default ServiceAccount, 200 after a
 * RoleBinding, as RBAC answers upstream), curl without a CA (error 60),
 * $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, and busybox 1.28's
 * wget, whose TLS kube-apiserver refuses.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';

/** The page's commands, verbatim, typed into a shell in the pod. */
const pageScript = `# Point to the internal API server hostname
APISERVER=https://kubernetes.default.svc

# Path to ServiceAccount token
SERVICEACCOUNT=/var/run/secrets/kubernetes.io/serviceaccount

# Read this Pod's namespace
NAMESPACE=$(cat \${SERVICEACCOUNT}/namespace)

# Read the ServiceAccount bearer token
TOKEN=$(cat \${SERVICEACCOUNT}/token)

# Reference the internal certificate authority (CA)
CACERT=\${SERVICEACCOUNT}/ca.crt

# Explore the API with TOKEN
curl --cacert \${CACERT} --header "Authorization: Bearer \${TOKEN}" -X GET \${APISERVER}/api
`;

/** The Service-account pages' and tutorials' one-liner (there with `exec -it`; no terminal here). */
const listPods = 'curl -s -k https://kubernetes.default.svc/api/v1/namespaces/default/pods -H "Authorization: Bearer $(cat /var/run/secrets/kubernetes.io/serviceaccount/token)"';

/** RBAC's words for the default ServiceAccount listing pods, as kube-apiserver answers. */
const forbidden = `{
  "kind": "Status",
  "apiVersion": "v1",
  "metadata": {},
  "status": "Failure",
  "message": "pods is forbidden: User \\"system:serviceaccount:default:default\\" cannot list resource \\"pods\\" in API group \\"\\" in the namespace \\"default\\"",
  "reason": "Forbidden",
  "details": {
    "kind": "pods"
  },
  "code": 403
}`;

const curlAdvice = 'More details here: https://curl.se/docs/sslcerts.html\n\ncurl failed to verify the legitimacy of the server and therefore could not\n' +
  'establish a secure connection to it. To learn more about this situation and\nhow to fix it, please visit the web page mentioned above.\n';

describe('k8ts up: Accessing the Kubernetes API from a Pod, over real HTTPS from a simulated pod', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const inPod = (script: string, pod = 'curl') => kubectl(['exec', pod, '--', 'sh', '-c', script], undefined, true);

  before(async () => {
    up = await startUp('k8ts-e2e-api-from-pod-');
    await kubectl(['run', 'curl', '--image=curlimages/curl', '--command', '--', 'sleep', '3600']);
    await kubectl(['run', 'busybox', '--image=busybox:1.28', '--', 'sleep', '3600']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/curl', 'pod/busybox', '--timeout=120s']);
  });
  after(async () => { await up?.close(); });

  it('the page\'s commands print the APIVersions with the server\'s address', async () => {
    const server = (await kubectl(['config', 'view', '--minify', '-o', 'jsonpath={.clusters[0].cluster.server}'])).stdout;
    const r = await kubectl(['exec', '-i', 'curl', '--', 'sh'], pageScript, true);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `{
  "kind": "APIVersions",
  "versions": [
    "v1"
  ],
  "serverAddressByClientCIDRs": [
    {
      "clientCIDR": "0.0.0.0/0",
      "serverAddress": "${new URL(server).host}"
    }
  ]
}`);
    // stdout is no terminal: curl's progress meter goes to stderr.
    assert.match(r.stderr, /^ {2}% Total {4}% Received/);
  });

  it('the projected token is a ServiceAccount JWT the API server authenticates', async () => {
    const token = (await kubectl(['exec', 'curl', '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/token'])).stdout;
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { sub: string; 'kubernetes.io': { pod: { name: string } } };
    assert.equal(claims.sub, 'system:serviceaccount:default:default');
    assert.equal(claims['kubernetes.io'].pod.name, 'curl');
    const review = await inPod('curl -s --cacert /var/run/secrets/kubernetes.io/serviceaccount/ca.crt -H "Authorization: Bearer $(cat /var/run/secrets/kubernetes.io/serviceaccount/token)" ' +
      '-H "Content-Type: application/json" -d \'{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}\' https://kubernetes.default.svc/apis/authentication.k8s.io/v1/selfsubjectreviews');
    const user = (JSON.parse(review.stdout) as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo;
    assert.equal(user.username, 'system:serviceaccount:default:default');
    assert.deepEqual(user.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
  });

  it('the default ServiceAccount may not list pods (403); a RoleBinding lets it (200)', async () => {
    const denied = await inPod(listPods);
    assert.deepEqual({ out: denied.stdout, code: denied.code }, { out: forbidden, code: 0 });
    await kubectl(['create', 'role', 'pod-reader', '--verb=get', '--verb=list', '--verb=watch', '--resource=pods']);
    await kubectl(['create', 'rolebinding', 'default-pod-reader', '--role=pod-reader', '--serviceaccount=default:default']);
    // The authorizer's cache follows the binding's watch event.
    const list = await eventually(async () => {
      const r = await inPod(`${listPods} -w '\\n%{http_code}'`);
      return r.stdout.endsWith('\n200') && r.stdout;
    }, 60_000, 'the pods listed with the default ServiceAccount\'s token');
    const pods = JSON.parse(list.slice(0, -'\n200'.length)) as { kind: string; items: { metadata: { name: string } }[] };
    assert.equal(pods.kind, 'PodList');
    assert.deepEqual(pods.items.map((p) => p.metadata.name).sort(), ['busybox', 'curl']);
  });

  it('curl without the CA fails verification (60); -k, and $KUBERNETES_SERVICE_HOST with the CA, reach the server', async () => {
    const noCA = await inPod('curl https://kubernetes');
    assert.equal(noCA.code, 60);
    assert.equal(noCA.stdout, '');
    assert.ok(noCA.stderr.endsWith(`\ncurl: (60) SSL certificate problem: unable to get local issuer certificate\n${curlAdvice}command terminated with exit code 60\n`), noCA.stderr);
    // Forgetting https:// meets the TLS port as kube-apiserver's Go server answers plain HTTP there.
    assert.equal((await inPod('curl -s kubernetes:443')).stdout, 'Client sent an HTTP request to an HTTPS server.\n');
    const insecure = await inPod('curl -s --insecure https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT/version');
    assert.match(insecure.stdout, /^\{\n {2}"major": "1",\n {2}"minor": "32",\n/);
    // The Service IP is one of the certificate's names, as kubeadm's apiserver.crt holds it.
    const byIP = await inPod('curl -s -o /dev/null -w "%{http_code}" --cacert /var/run/secrets/kubernetes.io/serviceaccount/ca.crt ' +
      '-H "Authorization: Bearer $(cat /var/run/secrets/kubernetes.io/serviceaccount/token)" https://$KUBERNETES_SERVICE_HOST/api');
    assert.deepEqual({ out: byIP.stdout, code: byIP.code }, { out: '200', code: 0 });
    const san = new X509Certificate(readFileSync(join(up.dir, 'data', 'pki', 'apiserver.crt'))).subjectAltName ?? '';
    for (const name of ['DNS:kubernetes', 'DNS:kubernetes.default', 'DNS:kubernetes.default.svc', 'DNS:kubernetes.default.svc.cluster.local', 'IP Address:10.96.0.1']) {
      assert.ok(san.split(', ').includes(name), `${name} in ${san}`);
    }
  });

  it('busybox 1.28\'s wget: its TLS offers what kube-apiserver refuses', async () => {
    const r = await inPod('wget -O- https://kubernetes.default.svc/api', 'busybox');
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'Connecting to kubernetes.default.svc (10.96.0.1:443)\nwget: TLS error from peer (alert code 40): handshake failure\n' +
      'wget: error getting response: Connection reset by peer\ncommand terminated with exit code 1\n');
  });
});
