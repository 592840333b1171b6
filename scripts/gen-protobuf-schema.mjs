#!/usr/bin/env node
/**
 * Writes src/api/protobuf/k8s-schema.ts, k8ts's own compact table of the
 * protobuf messages of the kinds it serves, from upstream's generated.proto
 * files (the field numbers are the wire protocol) and the Go struct tags of
 * types.go (JSON names, omitempty, pointers: what the JSON form of a decoded
 * message looks like).
 *
 * Nothing of the upstream repositories is copied: only message names, field
 * names, numbers and types, and three flags per field.
 *
 * Usage:
 *   node scripts/gen-protobuf-schema.mjs <kubernetes/api git dir> <kubernetes/apimachinery git dir> [kubernetes/apiextensions-apiserver git dir [kubernetes/kube-aggregator git dir]] [ref] [out]
 * e.g.
 *   node scripts/gen-protobuf-schema.mjs /work/.mirror/kubernetes+api/repo /work/.mirror/kubernetes+apimachinery/repo \
 *     /work/.mirror/kubernetes+apiextensions-apiserver/repo /work/.mirror/kubernetes+kube-aggregator/repo v0.32.9
 * All may be bare repositories: files are read with `git show <ref>:<path>`. The
 * apiextensions-apiserver repository (an existing directory in third place)
 * brings CustomResourceDefinition; without it the table has no CRD messages.
 * The kube-aggregator repository (an existing directory in fourth place) brings
 * APIService; without it the table has no apiregistration messages.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const [apiRepo, machineryRepo, ...rest] = process.argv.slice(2);
// The third argument is the apiextensions-apiserver repository when it is a directory, else the ref.
const extensionsRepo = rest[0] && existsSync(rest[0]) ? rest.shift() : undefined;
// Then the kube-aggregator repository, when the next argument is a directory too.
const aggregatorRepo = extensionsRepo && rest[0] && existsSync(rest[0]) ? rest.shift() : undefined;
const [ref = 'v0.32.9', outArg] = rest;
if (!apiRepo || !machineryRepo) {
  console.error('usage: gen-protobuf-schema.mjs <kubernetes/api git dir> <kubernetes/apimachinery git dir> [kubernetes/apiextensions-apiserver git dir] [ref] [out]');
  process.exit(2);
}
if (!extensionsRepo) console.error('no apiextensions-apiserver repository: the table will have no CustomResourceDefinition');
const here = path.dirname(fileURLToPath(import.meta.url));
const out = outArg ?? path.join(here, '..', 'src', 'api', 'protobuf', 'k8s-schema.ts');

const extensionsPackage = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const aggregatorPackage = 'k8s.io.kube_aggregator.pkg.apis.apiregistration.v1';

/** The served kinds and the envelope/option kinds their requests and answers use. */
const roots = [
  'k8s.io.api.core.v1.Namespace', 'k8s.io.api.core.v1.Node', 'k8s.io.api.core.v1.Pod', 'k8s.io.api.core.v1.Binding',
  'k8s.io.api.core.v1.Service', 'k8s.io.api.core.v1.Endpoints', 'k8s.io.api.core.v1.Event', 'k8s.io.api.core.v1.ConfigMap',
  'k8s.io.api.core.v1.Secret', 'k8s.io.api.core.v1.ServiceAccount', 'k8s.io.api.core.v1.PersistentVolume',
  'k8s.io.api.core.v1.PersistentVolumeClaim',
  'k8s.io.api.apps.v1.DaemonSet', 'k8s.io.api.apps.v1.StatefulSet', 'k8s.io.api.apps.v1.Deployment',
  'k8s.io.api.apps.v1.ReplicaSet', 'k8s.io.api.apps.v1.ControllerRevision',
  'k8s.io.api.coordination.v1.Lease', 'k8s.io.api.certificates.v1.CertificateSigningRequest',
  'k8s.io.api.events.v1.Event', 'k8s.io.api.storage.v1.StorageClass',
  'k8s.io.api.policy.v1.Eviction', 'k8s.io.api.autoscaling.v1.Scale',
  // Kinds being added beside this work (jobs, budgets, priorities, slices, quotas): cheap to carry now.
  'k8s.io.api.batch.v1.Job', 'k8s.io.api.batch.v1.CronJob', 'k8s.io.api.policy.v1.PodDisruptionBudget',
  'k8s.io.api.scheduling.v1.PriorityClass', 'k8s.io.api.discovery.v1.EndpointSlice',
  'k8s.io.api.core.v1.ResourceQuota', 'k8s.io.api.core.v1.LimitRange',
  // The groups every kubeadm cluster serves (ingress, policy, RBAC, autoscaling, runtime classes).
  'k8s.io.api.core.v1.PodTemplate', 'k8s.io.api.core.v1.ReplicationController',
  'k8s.io.api.networking.v1.Ingress', 'k8s.io.api.networking.v1.IngressClass', 'k8s.io.api.networking.v1.NetworkPolicy',
  'k8s.io.api.rbac.v1.Role', 'k8s.io.api.rbac.v1.ClusterRole', 'k8s.io.api.rbac.v1.RoleBinding', 'k8s.io.api.rbac.v1.ClusterRoleBinding',
  'k8s.io.api.autoscaling.v1.HorizontalPodAutoscaler', 'k8s.io.api.autoscaling.v2.HorizontalPodAutoscaler',
  'k8s.io.api.node.v1.RuntimeClass', 'k8s.io.api.authentication.v1.TokenRequest',
  'k8s.io.api.authorization.v1.SelfSubjectAccessReview', 'k8s.io.api.authorization.v1.SubjectAccessReview',
  'k8s.io.api.authorization.v1.LocalSubjectAccessReview', 'k8s.io.api.authorization.v1.SelfSubjectRulesReview',
  'k8s.io.api.authentication.v1.TokenReview', 'k8s.io.api.authentication.v1.SelfSubjectReview',
  // The extension points: webhook configurations and ValidatingAdmissionPolicy.
  'k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration', 'k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration',
  'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicy', 'k8s.io.api.admissionregistration.v1.ValidatingAdmissionPolicyBinding',
  // What `kubectl api-resources` lists on a kubeadm cluster besides: API Priority and Fairness, CSI objects.
  'k8s.io.api.flowcontrol.v1.FlowSchema', 'k8s.io.api.flowcontrol.v1.PriorityLevelConfiguration',
  'k8s.io.api.storage.v1.CSIDriver', 'k8s.io.api.storage.v1.CSINode', 'k8s.io.api.storage.v1.VolumeAttachment',
  'k8s.io.api.storage.v1.CSIStorageCapacity',
].flatMap((k) => (/\.(Binding|Eviction|Scale|TokenRequest|\w*Review)$/.test(k) ? [k] : [k, `${k}List`])).concat([
  'k8s.io.apimachinery.pkg.apis.meta.v1.Status', 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions',
  'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent', 'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadata',
  'k8s.io.apimachinery.pkg.apis.meta.v1.PartialObjectMetadataList', 'k8s.io.apimachinery.pkg.runtime.Unknown',
]).concat(extensionsRepo ? [`${extensionsPackage}.CustomResourceDefinition`, `${extensionsPackage}.CustomResourceDefinitionList`] : [])
  .concat(aggregatorRepo ? [`${aggregatorPackage}.APIService`, `${aggregatorPackage}.APIServiceList`] : []);

function git(repo, ...args) {
  return execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** An import path of a generated.proto to its repository and path there. */
function locate(importPath) {
  if (importPath.startsWith('k8s.io/api/')) return { repo: apiRepo, file: importPath.slice('k8s.io/api/'.length) };
  if (importPath.startsWith('k8s.io/apimachinery/')) return { repo: machineryRepo, file: importPath.slice('k8s.io/apimachinery/'.length) };
  if (extensionsRepo && importPath.startsWith('k8s.io/apiextensions-apiserver/')) {
    return { repo: extensionsRepo, file: importPath.slice('k8s.io/apiextensions-apiserver/'.length) };
  }
  if (aggregatorRepo && importPath.startsWith('k8s.io/kube-aggregator/')) {
    return { repo: aggregatorRepo, file: importPath.slice('k8s.io/kube-aggregator/'.length) };
  }
  throw new Error(`unexpected import ${importPath}`);
}

const root = new protobuf.Root();
const loaded = new Set();
/** Go package directory of each proto package, for the struct tags. */
const goDirs = new Map();
const sliceWrappers = new Set();
function load(importPath) {
  if (loaded.has(importPath)) return;
  loaded.add(importPath);
  const { repo, file } = locate(importPath);
  const source = git(repo, 'show', `${ref}:${file}`);
  const parsed = protobuf.parse(source, root, { keepCase: true, alternateCommentMode: true });
  goDirs.set(parsed.package, { repo, dir: path.posix.dirname(file) });
  // Messages that stand for a Go slice type (`+protobuf.nullable=true`): their JSON form is the list itself.
  const re = /\+protobuf\.nullable=true[\s\S]*?\nmessage (\w+) \{/g;
  for (let m; (m = re.exec(source));) {
    if (!source.slice(m.index, m.index + m[0].length).includes('\n\n')) sliceWrappers.add(`${parsed.package}.${m[1]}`);
  }
  for (const imp of parsed.imports ?? []) load(imp);
}
for (const dir of ['core/v1', 'apps/v1', 'coordination/v1', 'certificates/v1', 'events/v1', 'storage/v1', 'policy/v1', 'autoscaling/v1', 'batch/v1', 'scheduling/v1', 'discovery/v1',
  'networking/v1', 'rbac/v1', 'autoscaling/v2', 'node/v1', 'authentication/v1', 'authorization/v1', 'admissionregistration/v1', 'flowcontrol/v1']) {
  load(`k8s.io/api/${dir}/generated.proto`);
}
load('k8s.io/apimachinery/pkg/runtime/generated.proto');
if (extensionsRepo) load('k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated.proto');
if (aggregatorRepo) load('k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/generated.proto');
root.resolveAll();

/** Go struct fields by struct name, keyed by protobuf field name: { json, omitempty, pointer }. */
function goStructs({ repo, dir }) {
  const structs = new Map();
  const files = git(repo, 'ls-tree', '--name-only', ref, `${dir}/`).split('\n')
    .filter((f) => f.endsWith('.go') && !/_test\.go$|generated\.pb\.go$|zz_generated|swagger_doc/.test(f));
  for (const f of files) {
    let current;
    for (const line of git(repo, 'show', `${ref}:${f}`).split('\n')) {
      const start = /^type (\w+) struct \{/.exec(line);
      if (start) { current = new Map(); structs.set(start[1], current); continue; }
      if (line === '}') { current = undefined; continue; }
      if (!current) continue;
      // `Name Type \`tags\`` or an embedded `pkg.Type \`tags\``.
      const field = /^\s+(\w+)\s+(\S+)\s+`([^`]*)`/.exec(line) ?? /^\s+()(\*?[\w.]+)\s+`([^`]*)`/.exec(line);
      if (!field) continue;
      // An embedded struct's tag may leave the name out (EphemeralContainer's `protobuf:"bytes,1,req"`):
      // go-to-protobuf names the field after the type, first letter lowered (ephemeralContainerCommon).
      const typeName = field[2].replace(/^\*?(\w+\.)?/, '');
      const pbName = /protobuf:"[^"]*name=(\w+)/.exec(field[3])?.[1]
        ?? (field[1] === '' && field[3].includes('protobuf:"') ? typeName.charAt(0).toLowerCase() + typeName.slice(1) : undefined);
      if (!pbName) continue;
      const json = /json:"([^"]*)"/.exec(field[3])?.[1].split(',') ?? [];
      const inline = json.includes('inline');
      current.set(pbName, {
        json: inline ? '' : json[0] || field[1] || field[2].replace(/^\*?(\w+\.)?/, ''),
        omitempty: json.includes('omitempty'), pointer: field[2].startsWith('*'), inline,
      });
    }
  }
  return structs;
}

// The closure of the roots over message-typed fields.
const keep = new Set();
const queue = roots.map((n) => root.lookupType(n));
while (queue.length) {
  const t = queue.pop();
  if (keep.has(t.fullName)) continue;
  keep.add(t.fullName);
  for (const f of t.fieldsArray) if (f.resolvedType instanceof protobuf.Type) queue.push(f.resolvedType);
}

// The compact table: { "<package>": { "<Message>": { "fields": { name: { id, type, rule?, keyType?, go? } }, "slice"? } } }
const tags = new Map();
const table = {};
for (const full of [...keep].sort()) {
  const t = root.lookupType(full);
  const name = t.name;
  const packageName = t.parent.fullName.replace(/^\./, '');
  if (!tags.has(packageName)) tags.set(packageName, goStructs(goDirs.get(packageName)));
  const go = tags.get(packageName).get(name);
  const fields = {};
  for (const f of t.fieldsArray) {
    const type = f.resolvedType ? f.resolvedType.fullName.replace(/^\./, '') : f.type;
    const entry = { id: f.id, type };
    if (f.map) entry.keyType = f.keyType;
    else if (f.repeated) entry.rule = 'repeated';
    const g = go?.get(f.name);
    if (g) {
      if (g.json !== f.name) entry.json = g.json;
      const flags = (g.omitempty ? 'o' : '') + (g.pointer ? 'p' : '') + (g.inline ? 'i' : '');
      if (flags) entry.go = flags;
    }
    fields[f.name] = entry;
  }
  table[packageName] ??= {};
  table[packageName][name] = { fields, ...(sliceWrappers.has(full.replace(/^\./, '')) ? { slice: true } : {}) };
}

const commit = (repo) => git(repo, 'rev-parse', `${ref}^{commit}`).trim();
const header = `/**
 * GENERATED by scripts/gen-protobuf-schema.mjs; do not edit. Regenerate with:
 *   node scripts/gen-protobuf-schema.mjs <kubernetes/api git dir> <kubernetes/apimachinery git dir> ${extensionsRepo ? '<kubernetes/apiextensions-apiserver git dir> ' : ''}${aggregatorRepo ? '<kubernetes/kube-aggregator git dir> ' : ''}${ref}
 * from kubernetes/api ${ref} (commit ${commit(apiRepo)}),
 * kubernetes/apimachinery ${ref} (commit ${commit(machineryRepo)})${extensionsRepo ? `,
 * kubernetes/apiextensions-apiserver ${ref} (commit ${commit(extensionsRepo)})` : ''}${aggregatorRepo ? `,
 * kubernetes/kube-aggregator ${ref} (commit ${commit(aggregatorRepo)})` : ''}.
 *
 * k8ts's table of the protobuf messages of the served kinds: per package, per
 * message, its fields with number, type, rule or map key type, the JSON name
 * when it differs, and go: "o" (omitempty), "p" (a Go pointer), "i" (inline:
 * the message's fields sit in the parent's JSON object);
 * slice: the message stands for a Go slice (its JSON form is the list).
 */
import type { ProtoTable } from './table.js';

export const k8sSchema: ProtoTable = `;
// One message a line: small diffs when upstream adds a field.
const body = Object.entries(table).map(([pkg, messages]) => `  ${JSON.stringify(pkg)}: {\n${
  Object.entries(messages).map(([name, m]) => `    ${JSON.stringify(name)}: ${JSON.stringify(m)},`).join('\n')}\n  },`).join('\n');
writeFileSync(out, `${header}{\n${body}\n};\n`);
console.log(`wrote ${out}: ${keep.size} messages`);
