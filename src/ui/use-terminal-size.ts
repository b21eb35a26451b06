import { useStdout } from 'ink';
import {
  createContext,
  createElement,
  type ReactElement,
  type ReactNode,
  useContext,
  useEffect,
  useState,
} from 'react';

/** The terminal's columns and rows, re-read when the window is resized. */
export function useTerminalSize(fallback: { columns: number; rows: number } = { columns: 80, rows: 24 }): {
  columns: number;
  rows: number;
} {
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

// Columns taken from the terminal's width by the frames a view is drawn in (the REPL's panel: a
// border and its padding). A view that sizes itself to fit reads what is left, not the terminal.
const InsetContext = createContext(0);

/** Draws `children` inside a frame that takes `columns` of the width (added to any outer frame's). */
export function Inset({ columns, children }: { readonly columns: number; readonly children: ReactNode }): ReactElement {
  const outer = useContext(InsetContext);
  return createElement(InsetContext.Provider, { value: outer + columns }, children);
}

/** The columns a view has to draw in: the terminal's, less the frames around it. */
export function useAvailableColumns(): number {
  const inset = useContext(InsetContext);
  return Math.max(1, useTerminalSize().columns - inset);
}
