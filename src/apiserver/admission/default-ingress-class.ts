/**
 * DefaultIngressClass admission (upstream plugin/pkg/admission/network/
 * defaultingressclass): an Ingress created with neither spec.ingressClassName
 * nor the kubernetes.io/ingress.class annotation gets the IngressClass
 * annotated ingressclass.kubernetes.io/is-default-class: "true". Two or more
 * such classes refuse the Ingress, in upstream's words. The classes come from
 * the watch-fed cache (upstream reads its IngressClass lister).
 */
import type { Ingress, IngressClass } from 'kubernetes-types/networking/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import { forbiddenStatus } from '../../api/status.js';
import type { Lister } from '../../registry/lister.js';

const isDefaultAnnotation = 'ingressclass.kubernetes.io/is-default-class';
const classAnnotation = 'kubernetes.io/ingress.class';

export function defaultIngressClassAdmission(ingressClasses: Pick<Lister<IngressClass>, 'list'>) {
  return (op: 'create' | 'update', info: ResourceInfo, ingress: Ingress): void => {
    if (op !== 'create' || info.group !== 'networking.k8s.io' || info.plural !== 'ingresses') return;
    if (ingress.spec?.ingressClassName != null) return;
    if (ingress.metadata?.annotations?.[classAnnotation] !== undefined) return;
    const defaults = ingressClasses.list().filter((c) => c.metadata?.annotations?.[isDefaultAnnotation] === 'true');
    if (defaults.length > 1) {
      // admission.NewForbidden around an InternalError: both texts, one after the other.
      throw forbiddenStatus(`Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`,
        { group: info.group, resource: info.plural }, ingress.metadata?.name);
    }
    if (defaults.length === 1) (ingress.spec ??= {}).ingressClassName = defaults[0].metadata!.name;
  };
}
