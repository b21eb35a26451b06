import { Box } from 'ink';
import type { ReactNode } from 'react';

/**
 * Clips a live view at the terminal's edge. Views size their rows from the width they were last
 * told (useTerminalSize), but when the window narrows ink repaints once with the old tree before
 * React hears of the resize: a row of the old width then ran past the edge, the terminal wrapped
 * it, and ink's next repaint erased one row too few, leaving debris. This box takes ink's own
 * width (the terminal's, already the new one) and cuts what lies beyond it for that one frame.
 */
export function AtTerminalEdge({ children }: { readonly children: ReactNode }) {
  return (
    <Box flexDirection="column" overflowX="hidden">
      {children}
    </Box>
  );
}
