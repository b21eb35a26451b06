import { useEffect, useState } from 'react';
import { traceLiveState } from '../core/trace/live.js';
import type { TraceSession } from '../core/trace/session.js';
import { TraceView } from './TraceView.js';
import { useTerminalSize } from './use-terminal-size.js';

export interface TraceAppProps {
  readonly session: TraceSession;
  readonly what: string;
  /** The source's lag behind the server and its last status line (reconnecting, failover), polled with the session. */
  readonly stats: () => { readonly lagMs: number; readonly status?: string | undefined };
  readonly tickMs?: number;
}

/** The live `trace` screen: repaints from the session a few times a second (decoding never waits on it). */
export function TraceApp({ session, what, stats, tickMs = 250 }: TraceAppProps) {
  const { columns } = useTerminalSize();
  const [{ state, lagMs, status }, setFrame] = useState(() => frameOf(session, columns, stats));
  useEffect(() => {
    const timer = setInterval(() => setFrame(frameOf(session, columns, stats)), tickMs);
    return () => clearInterval(timer);
  }, [session, tickMs, columns, stats]);
  return <TraceView state={state} what={what} lagMs={lagMs} columns={columns} {...(status ? { status } : {})} />;
}

function frameOf(session: TraceSession, columns: number, stats: TraceAppProps['stats']) {
  return { state: traceLiveState(session, Math.max(40, columns - 1)), ...stats() };
}
