/** `hh:mm:ss` local time: log lines and "paused at" are read next to a wall clock. */
export const clockTime = (at: number): string => new Date(at).toTimeString().slice(0, 8);
