/** The storage layer: the Backend contract and its implementations. */
export * from './backend.js';
export * from './sqlite/index.js';
