/**
 * The admission webhook metrics with upstream's names and labels
 * (apiserver/pkg/admission/metrics): `type` is "admit" for mutating and
 * "validating" for validating webhooks.
 */
import { Counter, Histogram, type Registry } from '../../../util/prom.js';

export type WebhookType = 'admit' | 'validating';
export type RejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

export interface WebhookMetrics {
  observe(o: { name: string; type: WebhookType; operation: string; seconds: number; rejected: boolean; code: number }): void;
  rejection(o: { name: string; type: WebhookType; operation: string; errorType: RejectionErrorType; code: number }): void;
}

export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const duration = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'], buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 25], registers: [registry],
  });
  const requests = new Counter({
    name: 'apiserver_admission_webhook_request_total',
    help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'], registers: [registry],
  });
  const rejections = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'], registers: [registry],
  });
  return {
    observe: (o) => {
      duration.observe({ name: o.name, type: o.type, operation: o.operation, rejected: String(o.rejected) }, o.seconds);
      requests.inc({ name: o.name, type: o.type, operation: o.operation, code: String(Math.min(o.code, 600)), rejected: String(o.rejected) });
    },
    rejection: (o) => rejections.inc({ name: o.name, type: o.type, operation: o.operation, error_type: o.errorType, rejection_code: String(Math.min(o.code, 600)) }),
  };
}
