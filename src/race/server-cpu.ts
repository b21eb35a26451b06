// The lock server's own CPU time (INFO cpu), read before and after the race: next to the
// harness's figures it shows which side was busy.

import { connect } from '../redis/connection.js';
import type { TargetSpec } from '../redis/target.js';

/** used_cpu_sys + used_cpu_user of the server behind `spec`, in seconds; undefined if it cannot be read. */
export async function serverCpuSeconds(spec: TargetSpec): Promise<number | undefined> {
  try {
    const conn = await connect(spec, { mode: 'one-shot', name: 'redlock-cli:race-probe' });
    try {
      const info = String(await conn.client.info('cpu'));
      const sys = /used_cpu_sys:([\d.]+)/.exec(info)?.[1];
      const user = /used_cpu_user:([\d.]+)/.exec(info)?.[1];
      return sys !== undefined && user !== undefined ? Number(sys) + Number(user) : undefined;
    } finally {
      await conn.close();
    }
  } catch {
    return undefined; // only a figure for the summary: a server we cannot probe still races
  }
}
