/**
 * Defaults of admissionregistration.k8s.io/v1 webhook configurations, as
 * upstream's pkg/apis/admissionregistration/v1/defaults.go:
 * SetDefaults_ValidatingWebhook / SetDefaults_MutatingWebhook (failurePolicy
 * Fail, matchPolicy Equivalent, empty namespace and object selectors,
 * timeoutSeconds 10; mutating: reinvocationPolicy Never), SetDefaults_Rule
 * (scope "*") and SetDefaults_ServiceReference (port 443).
 */
import { Obj, isObj } from './util.js';

function defaultWebhook(w: Obj, mutating: boolean): void {
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (mutating) w.reinvocationPolicy ??= 'Never';
  if (Array.isArray(w.rules)) for (const r of w.rules) if (isObj(r)) r.scope ??= '*';
  const service = isObj(w.clientConfig) ? w.clientConfig.service : undefined;
  if (isObj(service)) service.port ??= 443;
}

const defaultWebhooks = (mutating: boolean) => (config: Obj): void => {
  if (!Array.isArray(config.webhooks)) return;
  for (const w of config.webhooks) if (isObj(w)) defaultWebhook(w, mutating);
};

export const defaultMutatingWebhookConfiguration = defaultWebhooks(true);
export const defaultValidatingWebhookConfiguration = defaultWebhooks(false);
