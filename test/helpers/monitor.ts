import { loopbackEndpoint } from '../../src/core/endpoint.js';
import { type MonitorLine, parseMonitorLine } from '../../src/core/trace/monitor-line.js';
import { openMonitor } from '../../src/redis/monitor.js';
import type { RedisServer } from './redis-server.js';

export interface CommandWatch {
  /** Every command the server ran since the watch began, in server order: time (ms), source (`lua` or the client's address), args. */
  readonly seen: MonitorLine[];
  close(): void;
}

/**
 * A MONITOR of the test's own, to assert what the server ran. Not ioredis's monitor(): on a busy
 * machine it can take a monitor line for the reply to its ready check's INFO and throw "Command
 * queue state error". Lines are parsed as trace parses them, arguments fully unescaped.
 */
export async function watchCommands(server: Pick<RedisServer, 'port'>): Promise<CommandWatch> {
  const seen: MonitorLine[] = [];
  const onLines = (lines: string[]): void => {
    for (const line of lines) {
      const parsed = parseMonitorLine(line);
      if (parsed) seen.push(parsed);
    }
  };
  const connection = await openMonitor({ ...loopbackEndpoint(server.port), name: 'redlock-cli-test:monitor' }, { onLines });
  return { seen, close: () => connection.close() };
}
