// The sandbox library: start real Redis topologies on loopback and break them on command.
export { startSandbox } from './start.js';
export { loadSandbox, listSandboxes, type LoadOptions, type Listing } from './registry.js';
export type { SandboxHandle, PauseResult } from './handle.js';
export type { ActionResult, RestartOptions } from './faults.js';
export { FAILOVER_HOWS, type FailoverHow, type FailoverOptions, type FailoverResult } from './failover.js';
export type { SandboxStatus, NodeStatus, LiveState, LiveRole } from './status.js';
export type { Fault, FailoverInProgress } from './in-force.js';
export type { SandboxUrls } from './urls.js';
export type { StopResult } from './supervisor.js';
export { MASTER_NAME } from './config.js';
export { DEFAULT_REDLOCK_NODES } from './plan.js';
export { DEFAULT_SANDBOX } from './state.js';
export * from './types.js';
export { withFakeClocks, detectClockSupport, parseClockChange, type ClockChange, type ClockSupport } from './clock.js';
