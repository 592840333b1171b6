/**
 * kubernetes-types 1.30 declares NamedRuleWithOperations without the fields
 * Go embeds from Rule (resources, scope); upstream's JSON has them.
 */
import type { NamedRuleWithOperations } from 'kubernetes-types/admissionregistration/v1.js';

export type ResourceRule = NamedRuleWithOperations & { resources?: string[]; scope?: string };
