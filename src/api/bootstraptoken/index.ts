/** Bootstrap tokens: format, Secret codec, validation and the cluster-info signatures. */
export * from './constants.js';
export * from './token.js';
export * from './secret.js';
export * from './validation.js';
export * from './jws.js';
