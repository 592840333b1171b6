/**
 * flowcontrol.apiserver.k8s.io/v1 defaults (upstream's SetDefaults_* of
 * pkg/apis/flowcontrol/v1): a FlowSchema without matchingPrecedence gets 1000;
 * a Limited level without nominalConcurrencyShares gets 30 (an explicit 0 stays:
 * v1 allows it), lendablePercent 0, and queuing 64 queues, hand size 8, 50 long;
 * the Exempt level's shares and lendable percent are 0.
 */
type Obj = Record<string, any>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export const defaultMatchingPrecedence = 1000;
export const defaultNominalConcurrencyShares = 30;

export function defaultFlowSchema(fs: Obj): void {
  if (!isObj(fs.spec)) fs.spec = {};
  if (!fs.spec.matchingPrecedence) fs.spec.matchingPrecedence = defaultMatchingPrecedence;
}

export function defaultPriorityLevelConfiguration(pl: Obj): void {
  const spec = pl.spec;
  if (!isObj(spec)) return;
  if (isObj(spec.exempt)) {
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
  const limited = spec.limited;
  if (!isObj(limited)) return;
  limited.nominalConcurrencyShares ??= defaultNominalConcurrencyShares;
  limited.lendablePercent ??= 0;
  const q = isObj(limited.limitResponse) ? limited.limitResponse.queuing : undefined;
  if (!isObj(q)) return;
  if (!q.handSize) q.handSize = 8;
  if (!q.queues) q.queues = 64;
  if (!q.queueLengthLimit) q.queueLengthLimit = 50;
}
