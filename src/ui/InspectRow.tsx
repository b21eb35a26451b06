import { Box, Text } from 'ink';
import type { ReactNode } from 'react';

/** Label column width of the inspect view: the longest label ("holders", "readers") plus a gap. */
export const LABEL_WIDTH = 9;

/** One labelled line of a key's panel; continuation lines of a list leave the label empty. */
export function InspectRow({ label = '', children }: { readonly label?: string | undefined; readonly children: ReactNode }) {
  return (
    <Box>
      <Box width={LABEL_WIDTH} flexShrink={0}>
        <Text dimColor>{label}</Text>
      </Box>
      {children}
    </Box>
  );
}
