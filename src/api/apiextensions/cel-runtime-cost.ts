/**
 * The runtime cost of a CEL evaluation, counted as cel-go's interpreter does
 * (interpreter/runtimecost.go) so that no single evaluation can run away:
 * upstream cancels a call past celconfig.PerCallLimit (1,000,000) with
 * `operation cancelled: actual cost limit exceeded`, and stops validating an
 * object once RuntimeCELCostBudget (10,000,000) is spent.
 *
 * @bufbuild/cel counts nothing, so k8ts meters its planned program: every
 * node the planner returns has its class's `eval` wrapped once (the classes
 * are not exported; they are reached through Planner.prototype.plan), which
 * charges 1 per node evaluated (cel-go's ident/select/call base cost), and
 * function calls also pay by the size of what they traverse and return
 * (cel-go's StringTraversalCostFactor 0.1 per character, 1 per list or map
 * element). Comprehensions pay per iteration through their condition and
 * step nodes, so nesting multiplies as it does upstream. Functions whose
 * output can outgrow their input (replace, join) charge the bound of their
 * output before building it.
 */
import { celError, celType, isCelError, isCelList, isCelMap, type CelResult } from '@bufbuild/cel';

/** k8s.io/apiserver/pkg/apis/cel/config.go */
export const perCallLimit = 1_000_000;
export const runtimeCELCostBudget = 10_000_000;
export const costLimitExceeded = 'operation cancelled: actual cost limit exceeded';

class CostLimitExceeded extends Error {
  constructor() { super(costLimitExceeded); }
}

/**
 * Time bounds beside the cost bounds. @bufbuild/cel evaluates several times
 * slower per cost unit than cel-go (about 150-250 ms per 1,000,000 units
 * warm, up to 1 s cold on a loaded 2-core machine), and evaluation runs on
 * the serving loop; so a call also stops after `callTimeLimitMs` of
 * evaluation, reported as the cost limit it stands for (docs/design-notes.md).
 */
export const callTimeLimitMs = 250;

/** The meter of the evaluation running now (evaluation is synchronous, so one at a time). */
let current: { used: number; limit: number; deadline: number; ticks: number } | undefined;

/** Charges `n` to the running evaluation; throws once its limit (or its time) is passed. */
export function charge(n: number): void {
  if (!current) return;
  current.used += n;
  if (current.used > current.limit) throw new CostLimitExceeded();
  if ((++current.ticks & 1023) === 0 && performance.now() > current.deadline) {
    current.used = current.limit + 1;
    throw new CostLimitExceeded();
  }
}

/**
 * Runs `evaluate` with a cost limit and a time limit (an absolute
 * performance.now() deadline); answers its result and the cost it used. A run
 * past either answers the cancellation error, as cel-go's does.
 */
export function metered(limit: number, evaluate: () => CelResult, deadline = performance.now() + callTimeLimitMs): { result: CelResult; cost: number; exceeded: boolean } {
  const outer = current;
  const meter = { used: 0, limit, deadline: Math.min(deadline, performance.now() + callTimeLimitMs), ticks: 0 };
  current = meter;
  try {
    const result = evaluate();
    const exceeded = meter.used > limit;
    return { result: exceeded ? celError(costLimitExceeded) : result, cost: meter.used, exceeded };
  } catch (e) {
    if (e instanceof CostLimitExceeded) return { result: celError(costLimitExceeded), cost: meter.used, exceeded: true };
    throw e;
  } finally {
    current = outer;
  }
}

/** Characters cost a tenth each (cel-go's StringTraversalCostFactor); list and map elements one each. */
export function sizeCost(v: unknown): number {
  if (typeof v === 'string') return Math.ceil(v.length * 0.1);
  if (v instanceof Uint8Array) return Math.ceil(v.length * 0.1);
  if (isCelList(v)) return v.size;
  if (isCelMap(v)) return v.size;
  return 0;
}

/** Equality and `in` walk their operands: the deep size, walked only as far as the budget allows. */
function deepCost(v: unknown, budget: number): number {
  if (typeof v !== 'object' || v === null) return 1 + (typeof v === 'string' ? Math.ceil(v.length * 0.1) : 0);
  let cost = 0;
  const stack: unknown[] = [v];
  while (stack.length && cost <= budget) {
    const x = stack.pop();
    cost += 1 + sizeCost(typeof x === 'string' || x instanceof Uint8Array ? x : undefined);
    if (isCelList(x)) for (const e of x) stack.push(e);
    else if (isCelMap(x)) for (const [k, e] of x.entries()) stack.push(k, e);
  }
  return cost;
}

/** Calls whose work does not grow with their operands (cel-go charges them a constant). */
const constantCalls = new Set(['size', '_[_]', '_?_:_', 'has', 'int', 'uint', 'double', 'bool', 'type', 'dyn', 'duration', 'timestamp',
  '_<_', '_<=_', '_>_', '_>=_', '_-_', '_*_', '_/_', '_%_', '-_', '!_']);
const deepCalls = new Set(['_==_', '_!=_', '@in']);
/** `+` charges strings here; list concatenation charges its copy itself (cel-bounded-funcs.ts). */
const enum Charging { Constant, Deep, Size, Concat }

interface EvalCallNode {
  id: number; name: string; target?: { eval(ctx: unknown): unknown };
  func?: { call(id: number, target: unknown, args: unknown[]): CelResult | undefined };
  args: { eval(ctx: unknown): unknown }[];
  k8tsCharging?: Charging;
}

const operandCost = (how: Charging, v: unknown) => (how === Charging.Deep ? deepCost(v, current!.limit - current!.used + 1) : how === Charging.Concat && typeof v !== 'string' ? 0 : sizeCost(v));

/** EvalCall.eval with charges for the operands before the call and the result after it. */
function evalCall(this: EvalCallNode, ctx: unknown): CelResult {
  const how = this.k8tsCharging ??= constantCalls.has(this.name) ? Charging.Constant : deepCalls.has(this.name) ? Charging.Deep : this.name === '_+_' ? Charging.Concat : Charging.Size;
  const metering = current !== undefined && how !== Charging.Constant;
  if (current) charge(1);
  if (this.func === undefined) return celError(`unbound function: ${this.name}`, this.id);
  const target = this.target?.eval(ctx);
  if (isCelError(target)) return target;
  if (metering && target !== undefined) charge(operandCost(how, target));
  const vals: unknown[] = [];
  for (const arg of this.args) {
    const val = arg.eval(ctx);
    if (isCelError(val)) return val;
    if (metering) charge(operandCost(how, val));
    vals.push(val);
  }
  const result = this.func.call(this.id, target, vals as never);
  if (result === undefined) {
    const shown = vals.map((x) => celType(x as never).name).join(', ');
    return celError(`found no matching overload for '${this.name}' applied to '${target !== undefined ? `${celType(target as never).name}.` : ''}(${shown})'`, this.id);
  }
  if (metering) charge(operandCost(how, result));
  return result;
}

const metered_ = new WeakSet<object>();
/** Wraps the eval of a planned node's class once: 1 per evaluation, calls by size. */
function meterClass(proto: { eval: (ctx: unknown) => unknown; constructor: { name: string } }): void {
  if (metered_.has(proto)) return;
  metered_.add(proto);
  if (proto.constructor.name === 'EvalCall') {
    proto.eval = evalCall as never;
    return;
  }
  const original = proto.eval;
  proto.eval = function meteredEval(this: unknown, ctx: unknown) {
    if (current) charge(1);
    return original.call(this, ctx);
  };
}

interface PlannerModule { Planner: { prototype: { plan(expr: unknown): object } } }
const plannerUrl = new URL('./planner.js', import.meta.resolve('@bufbuild/cel'));
const { Planner } = (await import(plannerUrl.href)) as PlannerModule;
const planOriginal = Planner.prototype.plan;
Planner.prototype.plan = function plan(this: unknown, expr: unknown) {
  const node = planOriginal.call(this, expr);
  // evalCall reads these fields of @bufbuild/cel 0.6's EvalCall; an upgrade that renames them must fail here, not run unmetered.
  if (node.constructor.name === 'EvalCall' && !('args' in node && 'func' in node && 'name' in node)) throw new Error('@bufbuild/cel EvalCall changed: CEL cost metering needs updating');
  meterClass(Object.getPrototypeOf(node));
  // A comprehension copies its whole range before the first iteration (EvalFold's Array.from), so the range's size is charged too.
  const fold = node as { constructor: { name: string }; iterRange?: { id: number; eval(ctx: unknown): unknown } };
  if (fold.constructor.name === 'EvalFold' && fold.iterRange) {
    const range = fold.iterRange;
    fold.iterRange = { id: range.id, eval: (ctx) => { const v = range.eval(ctx); charge(sizeCost(v)); return v; } };
  }
  return node;
};
