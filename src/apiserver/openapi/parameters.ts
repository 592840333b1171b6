/**
 * Request parameters of the resource operations, as kube-apiserver 1.32
 * declares them in /openapi/v3 (inline, `schema: {type, uniqueItems}`).
 * Delete's query parameters take their words from meta/v1 DeleteOptions.
 */
import { openapiDefinitions } from '../../api/schema/index.js';

export interface Parameter {
  name: string;
  in: 'query' | 'path';
  description: string;
  required?: boolean;
  schema: { type: 'string' | 'integer' | 'boolean'; uniqueItems: true };
}

const query = (name: string, type: Parameter['schema']['type'], description: string): Parameter =>
  ({ name, in: 'query', description, schema: { type, uniqueItems: true } });

export const pathName = (kind: string): Parameter =>
  ({ name: 'name', in: 'path', description: `name of the ${kind}`, required: true, schema: { type: 'string', uniqueItems: true } });

export const pathNamespace: Parameter = {
  name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects',
  required: true, schema: { type: 'string', uniqueItems: true },
};

export const pretty = query('pretty', 'string', "If 'true', then the output is pretty printed.");

const dryRun = query('dryRun', 'string', 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed');

const fieldManager = query('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.');

/** kubectl (cli-runtime query_param_verifier_v3.go) looks for this one on PATCH to send `fieldValidation=Strict`. */
const fieldValidation = query('fieldValidation', 'string', 'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore: This will ignore any unknown fields that are silently dropped from the object, and will ignore all but the last duplicate field that the decoder encounters. This is the default behavior prior to v1.23. - Warn: This will send a warning via the standard warning response header for each unknown field that is dropped from the object, and for each duplicate field that is encountered. The request will still succeed if there are no other errors, and will only persist the last of any duplicate fields. This is the default in v1.23+ - Strict: This will fail the request with a BadRequest error if any unknown fields would be dropped from the object, or if any duplicate fields are present. The error returned from the server will contain all unknown and duplicate fields encountered.');

const force = query('force', 'boolean', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.');

export const writeParameters: Parameter[] = [dryRun, fieldManager, fieldValidation];
export const patchParameters: Parameter[] = [dryRun, fieldManager, fieldValidation, force];

export const listParameters: Parameter[] = [
  query('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server\'s discretion. Clients should not assume bookmarks are returned at any specific interval, nor may they assume the server will send any BOOKMARK event during a session. If this is not a watch, this field is ignored.'),
  query('continue', 'string', 'The continue option should be set when retrieving more results from the server. Since this value is server defined, clients may only use the continue value from a previous query result with identical query parameters (except for the value of continue) and the server may reject a continue value it does not recognize.'),
  query('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
  query('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
  query('limit', 'integer', 'limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results.'),
  query('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset'),
  query('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset'),
  query('sendInitialEvents', 'boolean', '`sendInitialEvents=true` may be set together with `watch=true`. In that case, the watch stream will begin with synthetic events to produce the current state of objects in the collection.'),
  query('timeoutSeconds', 'integer', 'Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.'),
  query('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.'),
];

/** dryRun, gracePeriodSeconds, orphanDependents, propagationPolicy: DeleteOptions' fields as query parameters. */
export function deleteParameters(): Parameter[] {
  const options = openapiDefinitions()['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']?.properties ?? {};
  const fromOptions = (name: string, type: Parameter['schema']['type']) =>
    query(name, type, options[name]?.description ?? '');
  return [
    dryRun,
    fromOptions('gracePeriodSeconds', 'integer'),
    fromOptions('orphanDependents', 'boolean'),
    fromOptions('propagationPolicy', 'string'),
  ];
}
