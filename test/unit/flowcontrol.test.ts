/**
 * flowcontrol.apiserver.k8s.io/v1: the bootstrap objects are valid and
 * unchanged by defaulting (upstream's invariant), defaults, validation rules
 * (table-driven), and the printer columns `kubectl get` shows.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../src/api/flowcontrol/bootstrap.js';
import { validateCreate, validateUpdate } from '../../src/api/validation/index.js';
import { danglingCondition, danglingUpToDate } from '../../src/api/flowcontrol/dangling.js';
import { printTable } from '../../src/registry/printers/index.js';

const fsKey = 'flowcontrol.apiserver.k8s.io/v1/FlowSchema';
const plKey = 'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration';
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const errors = (key: string, obj: any) => { applyDefaults(key, obj); return validateCreate(key, obj).map(fieldErrorMessage); };

describe('flowcontrol bootstrap objects', () => {
  const schemas = [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()];
  const levels = [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()];

  it('are the 13 schemas and 8 levels of kube-apiserver 1.32, each annotated for auto-update', () => {
    assert.deepEqual(schemas.map((s) => s.metadata!.name).sort(), ['catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager',
      'kube-scheduler', 'kube-system-service-accounts', 'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election']);
    assert.deepEqual(levels.map((l) => l.metadata!.name).sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    for (const o of [...schemas, ...levels]) assert.equal(o.metadata!.annotations!['apf.kubernetes.io/autoupdate-spec'], 'true');
  });

  it('every schema names a bootstrapped level', () => {
    const names = new Set(levels.map((l) => l.metadata!.name));
    for (const s of schemas) assert.ok(names.has(s.spec!.priorityLevelConfiguration.name), s.metadata!.name);
  });

  for (const [key, objs] of [[fsKey, schemas], [plKey, levels]] as const) {
    for (const o of objs) {
      it(`${o.kind} ${o.metadata!.name}: valid, and defaulting changes nothing`, () => {
        const copy = clone(o);
        applyDefaults(key, copy);
        assert.deepEqual(copy, o);
        assert.deepEqual(validateCreate(key, copy).map(fieldErrorMessage), []);
      });
    }
  }
});

describe('flowcontrol defaults', () => {
  it('FlowSchema matchingPrecedence 1000', () => {
    const fs: any = { metadata: { name: 'a' }, spec: { priorityLevelConfiguration: { name: 'global-default' } } };
    applyDefaults(fsKey, fs);
    assert.equal(fs.spec.matchingPrecedence, 1000);
  });

  it('Limited: shares 30 (an explicit 0 stays), lendable 0, queuing 64/8/50; Exempt: 0 and 0', () => {
    const pl: any = { metadata: { name: 'a' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } };
    applyDefaults(plKey, pl);
    assert.deepEqual(pl.spec.limited, { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } });
    const zero: any = { spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } } };
    applyDefaults(plKey, zero);
    assert.equal(zero.spec.limited.nominalConcurrencyShares, 0);
    const exempt: any = { spec: { type: 'Exempt', exempt: {} } };
    applyDefaults(plKey, exempt);
    assert.deepEqual(exempt.spec.exempt, { nominalConcurrencyShares: 0, lendablePercent: 0 });
  });
});

describe('FlowSchema validation', () => {
  const base = () => ({
    metadata: { name: 'mine' },
    spec: { priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: 5000,
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'devs' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['default'] }] }] },
  });
  const cases: Array<[string, (fs: any) => void, string[]]> = [
    ['valid', () => {}, []],
    ['precedence 1 is for exempt only', (fs) => { fs.spec.matchingPrecedence = 1; }, ["spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"]],
    ['precedence over 10000', (fs) => { fs.spec.matchingPrecedence = 10001; }, ['spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000']],
    ['negative precedence', (fs) => { fs.spec.matchingPrecedence = -3; }, ['spec.matchingPrecedence: Invalid value: -3: must be a positive value']],
    ['no priority level', (fs) => { fs.spec.priorityLevelConfiguration = {}; }, ['spec.priorityLevelConfiguration.name: Required value: must reference a priority level']],
    ['unknown distinguisher', (fs) => { fs.spec.distinguisherMethod = { type: 'ByColour' }; },
      ['spec.distinguisherMethod.type: Unsupported value: {"type":"ByColour"}: supported values: "ByNamespace", "ByUser"']],
    ['no subjects, no rules', (fs) => { fs.spec.rules = [{ subjects: [] }]; },
      ['spec.rules[0].subjects: Required value: subjects must contain at least one value', 'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty']],
    ['user subject with a group', (fs) => { fs.spec.rules[0].subjects = [{ kind: 'User', user: { name: 'a' }, group: { name: 'b' } }]; },
      ["spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'"]],
    ['service account without namespace', (fs) => { fs.spec.rules[0].subjects = [{ kind: 'ServiceAccount', serviceAccount: { name: '*' } }]; },
      ['spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account']],
    ['unknown subject kind', (fs) => { fs.spec.rules[0].subjects = [{ kind: 'Robot' }]; },
      ['spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"']],
    ['* with other verbs', (fs) => { fs.spec.rules[0].resourceRules[0].verbs = ['*', 'get']; },
      ['spec.rules[0].resourceRules[0].verbs: Invalid value: ["*","get"]: if \'*\' is present, must not specify other verbs']],
    ['namespaced rule without namespaces', (fs) => { fs.spec.rules[0].resourceRules[0].namespaces = []; },
      ['spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace']],
    ['non-resource URL without slash', (fs) => { fs.spec.rules[0].nonResourceRules = [{ verbs: ['get'], nonResourceURLs: ['healthz'] }]; },
      ['spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "healthz": must start with slash']],
    ['wildcard in the middle of a URL', (fs) => { fs.spec.rules[0].nonResourceRules = [{ verbs: ['get'], nonResourceURLs: ['/a/*/b'] }]; },
      ['spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a/*/b": wildcard can only do suffix matching']],
  ];
  for (const [name, mutate, want] of cases) {
    it(name, () => {
      const fs = base();
      mutate(fs);
      assert.deepEqual(errors(fsKey, fs), want);
    });
  }

  it('the mandatory exempt and catch-all schemas keep their specs', () => {
    const changed = clone(mandatoryFlowSchemas()[1]);
    changed.spec!.matchingPrecedence = 9999;
    assert.ok(errors(fsKey, changed).some((e) => e.includes("spec of 'catch-all' must equal the fixed value")));
  });

  it('status: one condition per type; a status write is not checked against the spec', () => {
    const fs: any = base();
    applyDefaults(fsKey, fs);
    const next = { ...clone(fs), status: { conditions: [{ type: 'Dangling', status: 'False' }, { type: 'Dangling', status: 'True' }] } };
    assert.deepEqual(validateUpdate(fsKey, next, fs, 'status').map(fieldErrorMessage), ['status.conditions[1].type: Duplicate value: "Dangling"']);
  });
});

describe('PriorityLevelConfiguration validation', () => {
  const limited = (queuing: object) => ({ metadata: { name: 'mine' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing } } } });
  const cases: Array<[string, any, string[]]> = [
    ['valid', limited({ queues: 16, handSize: 4 }), []],
    ['hand larger than the deck', limited({ queues: 4, handSize: 8 }), ['spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (4)']],
    ['too many entropy bits', limited({ queues: 1_000_000, handSize: 10 }),
      ['spec.limited.limitResponse.queuing.handSize: Invalid value: 10: required entropy bits of deckSize 1000000 and handSize 10 should not be greater than 60']],
    ['negative queue length', limited({ queueLengthLimit: -1 }), ['spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive']],
    ['Exempt type needs the exempt name', { metadata: { name: 'mine' }, spec: { type: 'Exempt' } }, ["spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]],
    ['unknown type', { metadata: { name: 'mine' }, spec: { type: 'Unlimited' } }, ['spec.type: Unsupported value: "Unlimited": supported values: "Exempt", "Limited"']],
    ['Limited without limited', { metadata: { name: 'mine' }, spec: { type: 'Limited' } }, ['spec.limited: Required value: must not be empty when type is Limited']],
    ['lendable over 100', { metadata: { name: 'mine' }, spec: { type: 'Limited', limited: { lendablePercent: 101, limitResponse: { type: 'Reject' } } } },
      ['spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive']],
    ['Reject with queuing', { metadata: { name: 'mine' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: {} } } } },
      ['spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited']],
  ];
  for (const [name, pl, want] of cases) it(name, () => assert.deepEqual(errors(plKey, clone(pl)), want));

  it('catch-all keeps its spec; exempt may tune its shares', () => {
    const [catchAll, exempt] = mandatoryPriorityLevels().map(clone);
    catchAll.spec!.limited!.nominalConcurrencyShares = 50;
    assert.deepEqual(errors(plKey, catchAll).length, 1);
    exempt.spec!.exempt!.nominalConcurrencyShares = 10;
    assert.deepEqual(errors(plKey, exempt), []);
  });
});

describe('flowcontrol printers', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const created = '2026-01-01T00:00:00Z';
  it('FlowSchema: NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL', () => {
    const fs = { ...mandatoryFlowSchemas()[0], metadata: { name: 'exempt', creationTimestamp: created } };
    const t = printTable(fsKey, [fs, { ...suggestedFlowSchemas()[0], metadata: { name: 'system-nodes', creationTimestamp: created }, status: { conditions: [{ type: 'Dangling', status: 'False' }] } }], { now });
    assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL']);
    assert.deepEqual(t.rows.map((r) => r.cells), [['exempt', 'exempt', 1, '<none>', '10m', '?'], ['system-nodes', 'system', 500, 'ByUser', '10m', 'False']]);
  });

  it('PriorityLevelConfiguration: <none> where the level has no queuing', () => {
    const [catchAll, exempt] = mandatoryPriorityLevels();
    const t = printTable(plKey, [exempt, catchAll, suggestedPriorityLevels()[0]].map((p) => ({ ...p, metadata: { ...p.metadata, creationTimestamp: created } })), { now });
    assert.deepEqual(t.columnDefinitions.map((c) => c.name), ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age']);
    assert.deepEqual(t.rows.map((r) => r.cells), [
      ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>', '10m'],
      ['catch-all', 'Limited', 5, '<none>', '<none>', '<none>', '10m'],
      ['system', 'Limited', 30, 64, 6, 50, '10m'],
    ]);
  });
});

describe('the Dangling condition (MISSINGPL)', () => {
  const fs = suggestedFlowSchemas()[0];
  it('False/Found while the level exists, True/NotFound otherwise, in upstream\'s words', () => {
    assert.deepEqual(danglingCondition(fs, true, 't'), { type: 'Dangling', status: 'False', reason: 'Found', lastTransitionTime: 't',
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "system" and it exists' });
    assert.deepEqual(danglingCondition(fs, false, 't'), { type: 'Dangling', status: 'True', reason: 'NotFound', lastTransitionTime: 't',
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "system" but there is no such object' });
  });
  it('is not written again when only its time would change', () => {
    const written = { ...fs, status: { conditions: [danglingCondition(fs, true, 'earlier')] } };
    assert.equal(danglingUpToDate(written, danglingCondition(fs, true, 'now')), true);
    assert.equal(danglingUpToDate(written, danglingCondition(fs, false, 'now')), false);
    assert.equal(danglingUpToDate(fs, danglingCondition(fs, true, 'now')), false);
  });
});
