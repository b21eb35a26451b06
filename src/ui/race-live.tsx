import { render } from 'ink';
import type { RaceLiveState } from '../core/race/live.js';
import { RaceApp } from './RaceApp.js';

interface Stream {
  write(text: string): unknown;
}

export interface MountRaceViewOptions {
  readonly stdout: Stream;
  readonly stderr: Stream;
  readonly source: () => RaceLiveState;
}

/** Mounts the live race view (imported lazily: it pulls in ink and react); close() leaves the last frame. */
export function mountRaceView(opts: MountRaceViewOptions): { close(): Promise<void> } {
  const instance = render(<RaceApp source={opts.source} />, {
    stdout: opts.stdout as NodeJS.WriteStream,
    stderr: opts.stderr as NodeJS.WriteStream,
    // No key handling: Ctrl-C stays a signal, which the launcher turns into ctx.signal.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let closed = false;
  return {
    close: async () => {
      if (closed) return;
      closed = true;
      instance.unmount();
      await instance.waitUntilExit();
    },
  };
}
