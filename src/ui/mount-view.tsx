import { render } from 'ink';
import type { ReactElement } from 'react';

interface Stream {
  write(text: string): unknown;
}

/**
 * Renders a live view that takes no keys (Ctrl-C stays a signal, which the launcher turns into
 * ctx.signal); close() unmounts it and leaves the last frame on the terminal.
 */
export function mountView(element: ReactElement, io: { readonly stdout: Stream; readonly stderr: Stream }): { close(): Promise<void> } {
  const instance = render(element, {
    stdout: io.stdout as NodeJS.WriteStream,
    stderr: io.stderr as NodeJS.WriteStream,
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
