import { useMemo } from 'react';
import type { ChartOptions } from 'chart.js';
import type { DailyStats, Period } from '../../api/stats';
import { BarChart } from './BarChart';
import { SENT_STATUSES, STATUS_COLOURS, STATUS_LABELS } from './colours';
import { ChartTable } from './ChartTable';
import { count, shortDay } from './period';

const OPTIONS: ChartOptions<'bar'> = {
  scales: {
    x: { stacked: true, grid: { display: false }, ticks: { maxRotation: 0, autoSkipPadding: 12 } },
    y: { stacked: true, beginAtZero: true, grace: '5%', ticks: { precision: 0 } },
  },
  // A day's three counts together wherever the pointer is over its column, with their sum.
  interaction: { mode: 'index', intersect: false },
  plugins: {
    legend: { position: 'top' },
    tooltip: {
      callbacks: {
        footer: (items) =>
          `Total: ${count(items.reduce((sum, item) => sum + (item.parsed.y ?? 0), 0))}`,
      },
    },
  },
};

/** Messages sent per day of the period, each day's bar stacked by status. */
export function DeliveryChart({ days, period }: { days: DailyStats['days']; period: Period }) {
  const data = useMemo(
    () => ({
      labels: days.map((day) => shortDay(day.day)),
      datasets: SENT_STATUSES.map((status) => ({
        label: STATUS_LABELS[status],
        data: days.map((day) => day[status]),
        backgroundColor: STATUS_COLOURS[status],
      })),
    }),
    [days],
  );
  const totals = SENT_STATUSES.map((status) => days.reduce((sum, day) => sum + day[status], 0));
  const sent = totals.reduce((sum, total) => sum + total, 0);
  const summary =
    `Bar chart of the messages sent per day from ${period.start} to ${period.end}: ` +
    `${count(sent)} in all, ` +
    SENT_STATUSES.map((status, i) => `${count(totals[i])} ${status}`).join(', ') +
    '.';
  return (
    <>
      <BarChart summary={summary} data={data} options={OPTIONS} height={16} />
      <ChartTable
        caption="Messages sent per day"
        headers={['Day', ...SENT_STATUSES.map((status) => STATUS_LABELS[status])]}
        rows={days.map((day) => [day.day, ...SENT_STATUSES.map((status) => day[status])])}
        footer={['Total', ...totals]}
      />
    </>
  );
}
