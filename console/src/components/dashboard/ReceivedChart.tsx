import { useMemo } from 'react';
import type { ChartOptions } from 'chart.js';
import type { DailyStats, Period } from '../../api/stats';
import { BarChart } from './BarChart';
import { ChartTable } from './ChartTable';
import { STATUS_COLOURS } from './colours';
import { count, shortDay } from './period';

const OPTIONS: ChartOptions<'bar'> = {
  scales: {
    x: { grid: { display: false }, ticks: { maxRotation: 0, autoSkipPadding: 12 } },
    y: { beginAtZero: true, grace: '5%', ticks: { precision: 0 } },
  },
  plugins: { legend: { display: false } },
};

/** Messages received per day of the period. */
export function ReceivedChart({ days, period }: { days: DailyStats['days']; period: Period }) {
  const data = useMemo(
    () => ({
      labels: days.map((day) => shortDay(day.day)),
      datasets: [
        {
          label: 'Received',
          data: days.map((day) => day.received),
          backgroundColor: STATUS_COLOURS.received,
        },
      ],
    }),
    [days],
  );
  const received = days.reduce((sum, day) => sum + day.received, 0);
  const busiest = days.reduce<DailyStats['days'][number] | undefined>(
    (best, day) => (day.received > (best?.received ?? 0) ? day : best),
    undefined,
  );
  const summary =
    `Bar chart of the messages received per day from ${period.start} to ${period.end}: ` +
    `${count(received)} in all` +
    (busiest ? `, most on ${busiest.day} (${count(busiest.received)}).` : '.');
  return (
    <>
      <BarChart summary={summary} data={data} options={OPTIONS} height={12} />
      <ChartTable
        caption="Messages received per day"
        headers={['Day', 'Received']}
        rows={days.map((day) => [day.day, day.received])}
        footer={['Total', received]}
      />
    </>
  );
}
