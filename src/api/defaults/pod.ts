/**
 * v1 defaulting of pods and pod specs (pkg/apis/core/v1/defaults.go and the
 * generated walk over every container, volume and probe). `defaultPodSpec`
 * applies to templates too; `defaultPod` adds the pod-only defaults.
 */
import { defaultPullPolicy } from './image.js';
import { Obj, canonicalize, defaultResourceList, ensure, isObj, objects, setDefault } from './util.js';

const setIfZero = (o: Obj, k: string, value: number) => { if (!o[k]) o[k] = value; };

function defaultHTTPGet(h: unknown): void {
  if (!isObj(h)) return;
  setDefault(h, 'path', '/');
  setDefault(h, 'scheme', 'HTTP');
}

function defaultProbe(p: unknown): void {
  if (!isObj(p)) return;
  setIfZero(p, 'timeoutSeconds', 1);
  setIfZero(p, 'periodSeconds', 10);
  setIfZero(p, 'successThreshold', 1);
  setIfZero(p, 'failureThreshold', 3);
  defaultHTTPGet(p.httpGet);
  // GRPCAction.service is `+default=""`: kubectl describe dereferences it.
  if (isObj(p.grpc) && p.grpc.service === undefined) p.grpc.service = '';
}

function defaultFieldRef(ref: unknown): void {
  if (isObj(ref)) setDefault(ref, 'apiVersion', 'v1');
}

/** SetDefaults_Container plus ports, env, resources, probes and lifecycle hooks. */
function defaultContainer(c: Obj): void {
  setDefault(c, 'imagePullPolicy', defaultPullPolicy(typeof c.image === 'string' ? c.image : ''));
  setDefault(c, 'terminationMessagePath', '/dev/termination-log');
  setDefault(c, 'terminationMessagePolicy', 'File');
  for (const port of objects(c.ports)) setDefault(port, 'protocol', 'TCP');
  for (const env of objects(c.env)) if (isObj(env.valueFrom)) defaultFieldRef(env.valueFrom.fieldRef);
  const resources = ensure(c, 'resources');
  defaultResourceList(resources.limits);
  defaultResourceList(resources.requests);
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isObj(c.lifecycle)) {
    for (const hook of ['postStart', 'preStop']) if (isObj(c.lifecycle[hook])) defaultHTTPGet(c.lifecycle[hook].httpGet);
  }
}

const volumeSourceKeys = ['hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile',
  'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected', 'portworxVolume', 'scaleIO',
  'storageos', 'csi', 'ephemeral', 'image'];

/** Source defaults shared by pod volumes and PersistentVolumes. */
export function defaultVolumeSourceFields(v: Obj): void {
  if (isObj(v.hostPath)) setDefault(v.hostPath, 'type', '');
  if (isObj(v.iscsi)) setDefault(v.iscsi, 'iscsiInterface', 'default');
  if (isObj(v.rbd)) {
    setDefault(v.rbd, 'pool', 'rbd');
    setDefault(v.rbd, 'user', 'admin');
    setDefault(v.rbd, 'keyring', '/etc/ceph/keyring');
  }
  if (isObj(v.azureDisk)) {
    setDefault(v.azureDisk, 'cachingMode', 'ReadWrite');
    setDefault(v.azureDisk, 'kind', 'Shared');
    setDefault(v.azureDisk, 'fsType', 'ext4');
    setDefault(v.azureDisk, 'readOnly', false);
  }
  if (isObj(v.scaleIO)) {
    setDefault(v.scaleIO, 'storageMode', 'ThinProvisioned');
    setDefault(v.scaleIO, 'fsType', 'xfs');
  }
}

/** SetDefaults_Volume and the per-source defaults (modes 0644 = 420, fieldRef apiVersion, token expiry). */
function defaultVolume(v: Obj): void {
  if (!volumeSourceKeys.some((k) => isObj(v[k]))) v.emptyDir = {};
  defaultVolumeSourceFields(v);
  if (isObj(v.emptyDir) && v.emptyDir.sizeLimit !== undefined) canonicalize(v.emptyDir, 'sizeLimit');
  for (const k of ['secret', 'configMap', 'downwardAPI', 'projected']) if (isObj(v[k])) setDefault(v[k], 'defaultMode', 420);
  if (isObj(v.downwardAPI)) for (const item of objects(v.downwardAPI.items)) defaultFieldRef(item.fieldRef);
  if (isObj(v.projected)) {
    for (const src of objects(v.projected.sources)) {
      if (isObj(src.downwardAPI)) for (const item of objects(src.downwardAPI.items)) defaultFieldRef(item.fieldRef);
      if (isObj(src.serviceAccountToken)) setDefault(src.serviceAccountToken, 'expirationSeconds', 3600);
    }
  }
  if (isObj(v.ephemeral) && isObj(v.ephemeral.volumeClaimTemplate)) defaultPVCSpec(ensure(v.ephemeral.volumeClaimTemplate, 'spec'));
}

/** SetDefaults_PersistentVolumeClaimSpec plus its resource lists. */
export function defaultPVCSpec(spec: Obj): void {
  setDefault(spec, 'volumeMode', 'Filesystem');
  if (isObj(spec.resources)) {
    defaultResourceList(spec.resources.limits);
    defaultResourceList(spec.resources.requests);
  }
}

/**
 * v1 conversion (Convert_v1_PodSpec_To_core_PodSpec and back): serviceAccount is
 * the deprecated alias of serviceAccountName; the name wins when both are set,
 * and the alias is always written back equal to it. Upstream's internal PodSpec
 * has no alias field, so an update that leaves the alias out changes nothing.
 */
function aliasServiceAccount(spec: Obj): void {
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  else delete spec.serviceAccount;
}

/** SetDefaults_PodSpec and the walk over volumes and containers; templates get exactly this. */
export function defaultPodSpec(spec: Obj): void {
  aliasServiceAccount(spec);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  if (!isObj(spec.securityContext)) spec.securityContext = {};
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const v of objects(spec.volumes)) defaultVolume(v);
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) for (const c of objects(spec[field])) defaultContainer(c);
  defaultResourceList(spec.overhead);
}

/** Requests default to limits for resources that have a limit but no request (pods only). */
function requestsFromLimits(c: Obj): void {
  if (!isObj(c.resources) || !isObj(c.resources.limits)) return;
  const requests = ensure(c.resources, 'requests');
  for (const [k, v] of Object.entries(c.resources.limits)) if (!(k in requests)) requests[k] = v;
}

/** SetDefaults_Pod, then the pod spec. */
export function defaultPod(pod: Obj): void {
  const spec = ensure(pod, 'spec');
  for (const field of ['containers', 'initContainers']) for (const c of objects(spec[field])) requestsFromLimits(c);
  setDefault(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true) {
    for (const field of ['containers', 'initContainers']) {
      for (const c of objects(spec[field])) for (const port of objects(c.ports)) if (!port.hostPort) port.hostPort = port.containerPort;
    }
  }
  defaultPodSpec(spec);
}

/** A pod template: its spec gets the pod-spec defaults. */
export function defaultPodTemplate(template: unknown): void {
  if (isObj(template)) defaultPodSpec(ensure(template, 'spec'));
}

