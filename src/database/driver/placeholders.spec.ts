import { chunks, marks, rowMarks, rowValues } from './placeholders';

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

  it('lays out the values of each row, its columns in order then the values after', () => {
    const rows = [
      { a: 1, b: 'x', c: true },
      { a: 2, b: 'y', c: false },
    ];
    expect(rowValues(rows, ['b', 'a'], ['now'])).toEqual(['x', 1, 'now', 'y', 2, 'now']);
    expect(rowValues(rows, ['a', 'c'], [], (row, column) => `${row[column]}`)).toEqual([
      '1',
      'true',
      '2',
      'false',
    ]);
    expect(rowValues([], ['a'], [0])).toEqual([]);
  });
});
