import { count } from './period';

type Cell = string | number;

/**
 * A chart's numbers as a table, behind "Show as a table": what a screen reader reads instead of
 * the canvas, and what a person copies. The first column heads each row.
 */
export function ChartTable({
  caption,
  headers,
  rows,
  footer,
}: {
  caption: string;
  headers: string[];
  rows: Cell[][];
  footer?: Cell[];
}) {
  const cell = (value: Cell) => (typeof value === 'number' ? count(value) : value);
  return (
    <details className="chart-table">
      <summary>Show as a table</summary>
      <div className="table-scroll" tabIndex={0}>
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              {headers.map((header, i) => (
                <th key={header} scope="col" className={i > 0 ? 'number' : undefined}>
                  {header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map(([head, ...values]) => (
              <tr key={head}>
                <th scope="row">{cell(head)}</th>
                {values.map((value, i) => (
                  <td key={headers[i + 1]} className="number">
                    {cell(value)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          {footer && (
            <tfoot>
              <tr>
                <th scope="row">{cell(footer[0])}</th>
                {footer.slice(1).map((value, i) => (
                  <td key={headers[i + 1]} className="number">
                    {cell(value)}
                  </td>
                ))}
              </tr>
            </tfoot>
          )}
        </table>
      </div>
    </details>
  );
}
