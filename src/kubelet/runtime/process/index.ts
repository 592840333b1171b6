export { ProcessRuntime, processRuntimeType, processRuntimeVersion, type ProcessRuntimeOptions } from './runtime.js';
