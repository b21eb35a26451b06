import { useEffect, useState } from 'react';

/**
 * Re-renders the calling view every `tickMs` while `active`: for what moves between store updates
 * (a live cursor, a running time), which the view reads from its store's clock when it renders.
 */
export function useTick(active: boolean, tickMs: number): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setTick((n) => n + 1), tickMs);
    return () => clearInterval(timer);
  }, [active, tickMs]);
}
