import { Box, Text, type TextProps } from 'ink';

/**
 * Text that never shrinks in its row. Live views keep rows that move with the clock to one row
 * (a row that wrapped in some repaints and not others changed the frame's height, and a terminal
 * could keep a row of an old frame): the parts that must stay are Kept, and one part beside them
 * is cut with `wrap="truncate-…"`.
 */
export function Kept(props: TextProps) {
  return (
    <Box flexShrink={0}>
      <Text {...props} />
    </Box>
  );
}
