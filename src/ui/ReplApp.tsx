import { Box, Text, useApp } from 'ink';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import * as edit from '../core/repl/line-editor.js';
import { commonPrefix } from '../core/repl/complete.js';
import { completionPoint, quoteWord } from '../core/repl/tokenize.js';
import type { OutputLine, OutputTone, ReplScreen } from './repl-screen.js';
import { ReplPanel } from './ReplPanel.js';
import { ReplPrompt } from './ReplPrompt.js';
import { Scrollback } from './Scrollback.js';
import { safeLine, safeText } from '../core/terminal-text.js';
import type { KeyName } from '../core/key-press.js';
import { useKeys, type KeyPress } from './use-keys.js';

/** What the view needs of the session (src/repl/session.ts): its snapshot and where key presses go. */
export interface ReplController {
  subscribe(listener: () => void): () => void;
  getSnapshot(): ReplScreen;
  submit(line: string): void;
  /** Ctrl-C; false when nothing was running (the line is cleared instead). */
  interrupt(): boolean;
  eof(): void;
  complete(beforeCursor: string): string[];
  readonly history: readonly string[];
}

export interface ReplAppProps {
  readonly session: ReplController;
  readonly clock?: () => number;
  readonly tickMs?: number;
}

const TONE: Record<OutputTone, { color?: string; dimColor?: boolean }> = {
  result: {},
  message: { dimColor: true },
  error: { color: 'red' },
  repl: { color: 'blue' },
  echo: { dimColor: true },
  event: { color: 'magenta' },
};

type LineEdit = (line: edit.LineState, history: readonly string[]) => edit.LineState;

// What the editing keys do to the line (readline's bindings); Return and Tab act on the session.
const NAMED_EDITS: Partial<Record<KeyName, LineEdit>> = {
  up: edit.historyUp,
  down: edit.historyDown,
  left: edit.left,
  right: edit.right,
  home: edit.home,
  end: edit.end,
  backspace: edit.backspace,
  delete: edit.deleteForward,
};
const CTRL_EDITS: Readonly<Record<string, LineEdit>> = { a: edit.home, e: edit.end, u: edit.killToStart, w: edit.killWord };

function Output({ line }: { readonly line: OutputLine }) {
  // Every output line passes the text boundary: the REPL's own messages quote keys and client names
  // too. An error is one line whose quoted values are escaped whole, colour codes and newlines too.
  const safe = line.tone === 'error' ? safeText : safeLine;
  return <Text {...TONE[line.tone]}>{line.text === '' ? ' ' : safe(line.text)}</Text>;
}

const lineId = (line: OutputLine): number => line.id;

/** The REPL: command output scrolls above (<Scrollback>), the live panel and the prompt repaint below. */
export function ReplApp({ session, clock = Date.now, tickMs = 200 }: ReplAppProps) {
  const screen = useSyncExternalStore(session.subscribe, session.getSnapshot);
  const lineRef = useRef<edit.LineState>(edit.EMPTY_LINE);
  const [line, setLineState] = useState<edit.LineState>(edit.EMPTY_LINE);
  const [candidates, setCandidates] = useState<readonly string[] | undefined>();
  const [hint, setHint] = useState<string | undefined>();
  const [now, setNow] = useState(clock);
  const { exit } = useApp();

  useEffect(() => {
    if (screen.ended) exit();
  }, [screen.ended, exit]);
  // Countdowns move only while something is timed; an idle prompt repaints nothing.
  const ticking = screen.running !== undefined || screen.held.length > 0 || screen.waiting.length > 0 || screen.panel.watched.length > 0 || screen.sandbox !== undefined;
  useEffect(() => {
    if (!ticking) return;
    setNow(clock());
    const timer = setInterval(() => setNow(clock()), tickMs);
    return () => clearInterval(timer);
  }, [clock, tickMs, ticking]);

  // Several key events can arrive before React re-renders (a paste): edit through a ref.
  const setLine = (next: edit.LineState): void => {
    lineRef.current = next;
    setLineState(next);
  };

  const submit = (): void => {
    session.submit(lineRef.current.text);
    setLine(edit.EMPTY_LINE);
  };

  const completeWord = (): void => {
    const current = lineRef.current;
    const before = current.text.slice(0, current.cursor);
    const found = session.complete(before);
    const point = completionPoint(before);
    if (found.length === 0) return;
    const replaceWith = (word: string): void => {
      const text = current.text.slice(0, point.partialStart) + word + current.text.slice(current.cursor);
      setLine({ text, cursor: point.partialStart + word.length });
    };
    if (found.length === 1) {
      setCandidates(undefined);
      return replaceWith(`${quoteWord(found[0]!)} `);
    }
    const prefix = commonPrefix(found);
    // A longer common prefix fills in; otherwise show what fits (a prefix needing quotes waits for more typing).
    if (prefix.length > point.partial.length && quoteWord(prefix) === prefix) replaceWith(prefix);
    else setCandidates(found);
  };

  const onKey = (key: KeyPress): void => {
    setHint(undefined);
    if (key.name !== 'tab') setCandidates(undefined);
    const current = lineRef.current;
    if (key.ctrl && key.text === 'c') {
      if (!session.interrupt()) {
        if (current.text === '') setHint('(exit or Ctrl-D leaves)');
        setLine(edit.EMPTY_LINE);
      }
      return;
    }
    if (key.ctrl && key.text === 'd') {
      if (current.text === '') session.eof();
      else setLine(edit.deleteForward(current));
      return;
    }
    const named = key.name !== undefined ? NAMED_EDITS[key.name] : key.ctrl ? CTRL_EDITS[key.text] : undefined;
    if (key.name === 'return') return submit();
    if (key.name === 'tab') return completeWord();
    if (named) return setLine(named(current, session.history));
    if (key.ctrl || key.meta || key.name !== undefined) return;
    // Typed text, or a paste: Enter and Tab inside it act as they would typed one by one.
    for (const part of key.text.split(/(\r\n|\r|\n|\t)/)) {
      if (part === '\t') completeWord();
      else if (part === '\r' || part === '\n' || part === '\r\n') submit();
      // Other control characters in a paste (a stray Ctrl-U, an escape) would corrupt the line.
      else if (part !== '') setLine(edit.insert(lineRef.current, part.replace(/[\u0000-\u001f\u007f]/g, '')));
    }
  };
  useKeys(onKey, { isActive: !screen.ended });

  return (
    <Box flexDirection="column">
      <Scrollback items={screen.output} keyOf={lineId}>
        {(l) => <Output line={l} />}
      </Scrollback>
      {!screen.ended && <ReplPanel screen={screen} now={now} />}
      {!screen.ended && <ReplPrompt screen={screen} line={line} candidates={candidates} hint={hint} now={now} />}
    </Box>
  );
}
