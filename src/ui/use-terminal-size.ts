import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/** The terminal's columns and rows, re-read when the window is resized. */
export function useTerminalSize(fallback: { columns: number; rows: number } = { columns: 80, rows: 24 }): { columns: number; rows: number } {
  const { stdout } = useStdout();
  // The fallback's numbers, not the object (a new one each render), decide when to listen again.
  const { columns, rows } = fallback;
  const [size, setSize] = useState(() => sizeOf(stdout, columns, rows));
  useEffect(() => {
    const onResize = (): void => setSize(sizeOf(stdout, columns, rows));
    stdout.on('resize', onResize);
    return () => void stdout.off('resize', onResize);
  }, [stdout, columns, rows]);
  return size;
}

function sizeOf(stdout: NodeJS.WriteStream, columns: number, rows: number): { columns: number; rows: number } {
  return { columns: stdout.columns || columns, rows: stdout.rows || rows };
}
