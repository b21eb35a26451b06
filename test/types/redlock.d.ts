// node-redlock's package "exports" hide its d.ts from NodeNext resolution; point the types at it
// here (a tsconfig "paths" entry would also redirect tsx's runtime import to the .d.ts file).
declare module 'redlock' {
  import Redlock from '../../node_modules/redlock/dist/index.js';
  export type { ClientExecutionResult, ExecutionResult, ExecutionStats, Settings, RedlockAbortSignal } from '../../node_modules/redlock/dist/index.js';
  export { ExecutionError, Lock, ResourceLockedError } from '../../node_modules/redlock/dist/index.js';
  export default Redlock;
}
