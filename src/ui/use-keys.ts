// The one keyboard hook of the live views and the REPL, in place of ink's useInput: ink's decoder
// throws on a terminal report it cannot name (ESC [ 6 n, ESC [ 1 ; 5 n ...) inside its stdin
// listener, which ended the process; core/key-press.ts names the keys we use and ignores the rest.
import { useStdin } from 'ink';
import { useEffect } from 'react';
import { decodeKey, type KeyPress } from '../core/key-press.js';

export type { KeyPress } from '../core/key-press.js';

/**
 * Calls `onKey` for every key press the views act on, with stdin in raw mode while active. Inactive
 * where stdin cannot do raw mode (not a terminal): the view then takes no keys, and Ctrl-C stays
 * a signal.
 */
export function useKeys(onKey: (key: KeyPress) => void, { isActive = true }: { readonly isActive?: boolean } = {}): void {
  const { setRawMode, isRawModeSupported, internal_eventEmitter: events } = useStdin();
  const active = isActive && isRawModeSupported;
  useEffect(() => {
    if (!active) return;
    setRawMode(true);
    return () => setRawMode(false);
  }, [active, setRawMode]);
  useEffect(() => {
    if (!active) return;
    const onInput = (event: string): void => {
      const key = decodeKey(event);
      if (key) onKey(key);
    };
    events.on('input', onInput);
    return () => void events.off('input', onInput);
  }, [active, events, onKey]);
}
