import { useEffect, useState } from 'react';
import type { RaceLiveState } from '../core/race/live.js';
import { RaceView } from './RaceView.js';
import { useTerminalSize } from './use-terminal-size.js';

export interface RaceAppProps {
  /** The race's current state; polled, so the clients never wait on the screen. */
  readonly source: () => RaceLiveState;
  readonly tickMs?: number;
}

/** The live `race` screen: repaints from the source a few times a second. */
export function RaceApp({ source, tickMs = 250 }: RaceAppProps) {
  const [state, setState] = useState(source);
  const { columns } = useTerminalSize();
  useEffect(() => {
    const timer = setInterval(() => setState(source()), tickMs);
    return () => clearInterval(timer);
  }, [source, tickMs]);
  return <RaceView state={state} columns={columns} />;
}
