/**
 * The environment variable that picks the server binary for every sandbox, as --redis-server does
 * for one. A constant of its own so that option help can name it without loading the sandbox code.
 */
export const REDIS_SERVER_ENV = 'REDLOCK_REDIS_SERVER';
