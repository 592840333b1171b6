/** What every /openapi/v3 document shares: its `info`, and the hash that names its version. */
import { createHash } from 'node:crypto';

export interface OpenAPIV3Document {
  /** The JSON text served for `GET /openapi/v3/<gvPath>`. */
  body: string;
  /** Upper-case hex SHA-512 of `body`: the `?hash=` of the index and the ETag. */
  hash: string;
}

export const KUBERNETES_VERSION = 'v1.32.0';
export const openapiInfo = { title: 'Kubernetes', version: KUBERNETES_VERSION };

export function withHash(body: string): OpenAPIV3Document {
  return { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() };
}
