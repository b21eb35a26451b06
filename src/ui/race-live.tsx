import type { RaceLiveState } from '../core/race/live.js';
import { mountLive } from './mount-view.js';
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
  return mountLive(<RaceApp source={opts.source} />, opts);
}
