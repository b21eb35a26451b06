// The endpoint's names as src/redis and the commands have used them: the type and the parser
// live in core/endpoint.ts, the one place a connection string is read.

import type { Endpoint } from '../core/endpoint.js';

export type { Endpoint, HostPort } from '../core/endpoint.js';
export {
  DEFAULT_REPLY_TIMEOUT_MS,
  DEFAULT_URL,
  describeEndpoint as describeTarget,
  formatHostPort,
  parseEndpointUrl,
  parseHostList,
} from '../core/endpoint.js';

/** Where and how to connect: the resolved endpoint (the name every command's code uses). */
export type TargetSpec = Endpoint;
