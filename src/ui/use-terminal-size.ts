import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/** The terminal's columns and rows, re-read when the window is resized. */
export function useTerminalSize(fallback: { columns: number; rows: number } = { columns: 80, rows: 24 }): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = () => ({ columns: stdout.columns || fallback.columns, rows: stdout.rows || fallback.rows });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = (): void => setSize(read());
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout]);
  return size;
}
