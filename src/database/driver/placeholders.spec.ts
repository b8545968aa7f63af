import { chunks, marks, rowMarks } from './placeholders';

describe('placeholders', () => {
  it('gives one mark per value', () => {
    expect(marks(3)).toBe('?, ?, ?');
    expect(marks(1)).toBe('?');
  });

  it('gives one tuple per row', () => {
    expect(rowMarks(2, 3)).toBe('(?, ?, ?), (?, ?, ?)');
  });

  it('cuts a list into pieces in order, the last one shorter', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 2)).toEqual([]);
  });
});
