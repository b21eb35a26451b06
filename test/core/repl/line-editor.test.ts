import { describe, expect, it } from 'vitest';
import * as edit from '../../../src/core/repl/line-editor.js';

const typed = (text: string): edit.LineState => edit.insert(edit.EMPTY_LINE, text);

describe('line editor', () => {
  it('inserts and deletes at the cursor', () => {
    let s = typed('acquire k');
    s = edit.left(edit.left(s));
    s = edit.insert(s, 'X');
    expect(s).toEqual({ text: 'acquireX k', cursor: 8 });
    expect(edit.backspace(s)).toEqual({ text: 'acquire k', cursor: 7 });
    expect(edit.deleteForward(s)).toEqual({ text: 'acquireXk', cursor: 8 });
    expect(edit.backspace(edit.home(s))).toEqual({ ...edit.home(s) });
  });

  it('Ctrl-U and Ctrl-W erase before the cursor', () => {
    expect(edit.killToStart(typed('as B acquire k'))).toEqual({ text: '', cursor: 0 });
    expect(edit.killWord(typed('as B acquire k  '))).toEqual({ text: 'as B acquire ', cursor: 13 });
    expect(edit.killWord(edit.left(typed('as B acquire')))).toEqual({ text: 'as B e', cursor: 5 });
  });

  it('walks the history and gives the unfinished line back', () => {
    const history = ['acquire a', 'acquire b', 'acquire c'];
    let s = typed('draft');
    s = edit.historyUp(s, history);
    expect(s.text).toBe('acquire c');
    s = edit.historyUp(edit.historyUp(edit.historyUp(s, history), history), history);
    expect(s.text).toBe('acquire a'); // stops at the oldest
    s = edit.historyDown(s, history);
    expect(s).toMatchObject({ text: 'acquire b', cursor: 9 });
    s = edit.historyDown(edit.historyDown(s, history), history);
    expect(s).toEqual({ text: 'draft', cursor: 5 });
    expect(edit.historyDown(s, history)).toEqual(s);
    expect(edit.historyUp(typed('x'), [])).toEqual(typed('x'));
  });

  it('keeps history free of blanks and immediate repeats, newest last, bounded', () => {
    let h: string[] = [];
    for (const line of ['a', ' ', 'a', 'b', 'a']) h = edit.addToHistory(h, line, 3);
    expect(h).toEqual(['a', 'b', 'a']);
    expect(edit.addToHistory(h, 'c', 3)).toEqual(['b', 'a', 'c']);
  });
});
