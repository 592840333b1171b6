/**
 * Which FlowSchema a request matches, and so which priority level and flow it
 * waits in: upstream's rules (apiserver/pkg/util/flowcontrol/apf_filter.go,
 * matching.go) over kube-apiserver's default schemas (api/flowcontrol/bootstrap.ts).
 * The schemas are tried by matchingPrecedence, then name; the first whose
 * rules match wins; its distinguisher (ByUser, ByNamespace or none) names the
 * flow within the schema.
 *
 * A schema's subjects depend on the user alone, its rules on the request: so
 * the schemas a user can match are worked out once per user (cached on the
 * user object, which the authenticators keep per client certificate or
 * token), and a request walks that short list (for most users two or three
 * schemas, the first usually matching every request). A flow's key is kept
 * per schema and distinguisher value, so a request allocates nothing.
 */
import type { FlowSchema, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from 'kubernetes-types/flowcontrol/v1.js';
import type { UserInfo } from '../auth/types.js';
import type { RequestInfo } from '../request-info.js';

/** A schema as the server matches it, with the counts /metrics reports for it (flowcontrol/metrics.ts). */
export interface Schema {
  readonly name: string;
  readonly priorityLevel: string;
  readonly distinguisher: 'ByUser' | 'ByNamespace' | undefined;
  readonly rules: readonly PolicyRulesWithSubjects[];
  /** The wait histogram's series keys (request-stages.ts), made once: seated, and rejected or left. */
  readonly waitKeys: { readonly true: string; readonly false: string };
  /** Flow keys by distinguisher value, so that a request makes no string (bounded: cleared past flowKeysKept). */
  readonly flowKeys: Map<string, string>;
  dispatched: number;
  rejected: { 'queue-full': number; 'concurrency-limit': number };
  inQueue: number;
}

const flowKeysKept = 4096;

export function schemaOf(fs: FlowSchema): Schema {
  const name = fs.metadata!.name!;
  const priorityLevel = fs.spec!.priorityLevelConfiguration.name;
  const type = fs.spec!.distinguisherMethod?.type;
  return {
    name, priorityLevel, distinguisher: type === 'ByUser' || type === 'ByNamespace' ? type : undefined, rules: fs.spec!.rules ?? [],
    waitKeys: { true: `${name}\x00${priorityLevel}\x00true\x00`, false: `${name}\x00${priorityLevel}\x00false\x00` },
    flowKeys: new Map(), dispatched: 0, rejected: { 'queue-full': 0, 'concurrency-limit': 0 }, inQueue: 0,
  };
}

/** The flow of a request that matched `schema`: its schema's name and the distinguisher's value (upstream hashes the two). */
export function flowOf(schema: Schema, user: UserInfo, info: RequestInfo): string {
  const by = schema.distinguisher === 'ByUser' ? user.name : schema.distinguisher === 'ByNamespace' ? info.namespace ?? '' : '';
  let key = schema.flowKeys.get(by);
  if (key === undefined) {
    if (schema.flowKeys.size >= flowKeysKept) schema.flowKeys.clear();
    key = `${schema.name}\x00${by}`;
    schema.flowKeys.set(by, key);
  }
  return key;
}

const has = (list: readonly string[] | undefined, value: string, every: string) => !!list && (list.includes(every) || list.includes(value));

/** A subject names this user (upstream's matchesSubject; a ServiceAccount by its user name, `*` any in its namespace). */
export function subjectMatches(s: Subject, user: UserInfo): boolean {
  switch (s.kind) {
    case 'User': return s.user?.name === '*' || s.user?.name === user.name;
    case 'Group': return s.group?.name === '*' || (!!s.group && user.groups.includes(s.group.name));
    case 'ServiceAccount': {
      const sa = s.serviceAccount;
      if (!sa) return false;
      const prefix = `system:serviceaccount:${sa.namespace}:`;
      return sa.name === '*' ? user.name.startsWith(prefix) && user.name.length > prefix.length : user.name === prefix + sa.name;
    }
    default: return false;
  }
}

function resourceRuleMatches(r: ResourcePolicyRule, info: RequestInfo): boolean {
  if (!has(r.verbs, info.verb, '*') || !has(r.apiGroups, info.group, '*')) return false;
  const resource = info.resource ?? '';
  // A subresource matches as resource/subresource ("nodes/status"), or "*".
  const sub = info.subresource;
  if (!r.resources.includes('*') && !(sub ? r.resources.some((x) => namesSubresource(x, resource, sub)) : r.resources.includes(resource))) return false;
  return info.namespace ? has(r.namespaces, info.namespace, '*') : r.clusterScope === true;
}

/** `x` is "resource/sub", compared without building that string. */
const namesSubresource = (x: string, resource: string, sub: string) =>
  x.length === resource.length + 1 + sub.length && x.startsWith(resource) && x[resource.length] === '/' && x.endsWith(sub);

function nonResourceRuleMatches(r: NonResourcePolicyRule, info: RequestInfo): boolean {
  if (!has(r.verbs, info.verb, '*')) return false;
  // A URL matches exactly, or a pattern ending in "/*" matches what is under it ("*" matches all).
  return r.nonResourceURLs.some((u) => u === '*' || u === info.path || (u.endsWith('/*') && info.path.startsWith(u.slice(0, -1))));
}

/** The rules of `p` that hold for this request (its subjects were matched when the user's schemas were chosen). */
function rulesMatch(p: PolicyRulesWithSubjects, info: RequestInfo): boolean {
  if (info.isResourceRequest) return !!p.resourceRules?.some((r) => resourceRuleMatches(r, info));
  return !!p.nonResourceRules?.some((r) => nonResourceRuleMatches(r, info));
}

/** A schema a user can match, with only the rule groups whose subjects name the user. */
interface Candidate { schema: Schema; rules: PolicyRulesWithSubjects[] }

/** Schemas in upstream's order, and per user the ones whose subjects name it. */
export class Classifier {
  private readonly schemas: Schema[];
  private readonly byUser = new WeakMap<UserInfo, Candidate[]>();
  /** For user objects made per request (impersonation): by name, checked against the groups. */
  private readonly byName = new Map<string, { groups: string[]; candidates: Candidate[] }>();

  constructor(flowSchemas: FlowSchema[]) {
    this.schemas = flowSchemas.map(schemaOf).sort((a, b) => precedence(flowSchemas, a) - precedence(flowSchemas, b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get all(): readonly Schema[] { return this.schemas; }

  /** The first schema this request matches; undefined only if no schema does (the mandatory catch-all takes every authenticated or anonymous user). */
  classify(user: UserInfo, info: RequestInfo): Schema | undefined {
    for (const c of this.candidatesOf(user)) {
      for (const p of c.rules) if (rulesMatch(p, info)) return c.schema;
    }
    return undefined;
  }

  private candidatesOf(user: UserInfo): Candidate[] {
    let c = this.byUser.get(user);
    if (c) return c;
    const named = this.byName.get(user.name);
    if (named && sameGroups(named.groups, user.groups)) c = named.candidates;
    else {
      c = [];
      for (const schema of this.schemas) {
        const rules = schema.rules.filter((p) => p.subjects.some((s) => subjectMatches(s, user)));
        if (rules.length) c.push({ schema, rules });
      }
      if (this.byName.size >= flowKeysKept) this.byName.clear();
      this.byName.set(user.name, { groups: user.groups, candidates: c });
    }
    this.byUser.set(user, c);
    return c;
  }
}

function precedence(all: FlowSchema[], s: Schema): number {
  return all.find((fs) => fs.metadata!.name === s.name)!.spec!.matchingPrecedence ?? 1000;
}

function sameGroups(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
