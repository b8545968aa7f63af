import { useMemo } from 'react';
import type { ChartOptions } from 'chart.js';
import type { PhoneSummary } from '../../api/phones';
import type { DailyStats, Period } from '../../api/stats';
import { BarChart } from './BarChart';
import { ChartTable } from './ChartTable';
import { SENT_STATUSES, STATUS_COLOURS, STATUS_LABELS } from './colours';
import { count } from './period';

const OPTIONS: ChartOptions<'bar'> = {
  indexAxis: 'y',
  scales: {
    x: { stacked: true, beginAtZero: true, grace: '5%', ticks: { precision: 0 } },
    y: { stacked: true, grid: { display: false } },
  },
  // A phone's counts together wherever the pointer is along its row, with its sent messages' sum.
  interaction: { mode: 'index', axis: 'y', intersect: false },
  plugins: {
    legend: { position: 'top' },
    tooltip: {
      callbacks: {
        footer: (items) =>
          `Sent: ${count(
            items
              .filter((item) => item.dataset.stack === 'sent')
              .reduce((sum, item) => sum + (item.parsed.x ?? 0), 0),
          )}`,
      },
    },
  },
};

/** What a phone is called on the dashboard; its id if it was deleted since the counts were read. */
function phoneName(id: number, phones: PhoneSummary[]): string {
  return phones.find((phone) => phone.id === id)?.name ?? `Phone ${id}`;
}

/**
 * The volume of each phone in the period: its sent messages stacked by status, and beside them
 * the messages it received.
 */
export function PhoneVolumes({
  volumes,
  phones,
  period,
}: {
  volumes: DailyStats['phones'];
  phones: PhoneSummary[];
  period: Period;
}) {
  const names = volumes.map((volume) => phoneName(volume.id_phone, phones));
  const data = useMemo(
    () => ({
      labels: volumes.map((volume) => phoneName(volume.id_phone, phones)),
      datasets: [
        ...SENT_STATUSES.map((status) => ({
          label: `${STATUS_LABELS[status]} (sent)`,
          data: volumes.map((volume) => volume[status]),
          backgroundColor: STATUS_COLOURS[status],
          stack: 'sent',
        })),
        {
          label: 'Received',
          data: volumes.map((volume) => volume.received),
          backgroundColor: STATUS_COLOURS.received,
          stack: 'received',
        },
      ],
    }),
    [volumes, phones],
  );
  if (volumes.length === 0) {
    return <p>No message was sent or received in this period.</p>;
  }
  const sentOf = (volume: DailyStats['phones'][number]) =>
    SENT_STATUSES.reduce((sum, status) => sum + volume[status], 0);
  const summary =
    `Bar chart of each phone's messages from ${period.start} to ${period.end}: ` +
    volumes
      .map(
        (volume, i) =>
          `${names[i]} sent ${count(sentOf(volume))} and received ${count(volume.received)}`,
      )
      .join('; ') +
    '.';
  return (
    <>
      <BarChart
        summary={summary}
        data={data}
        options={OPTIONS}
        height={Math.max(10, 5 + volumes.length * 3)}
      />
      <ChartTable
        caption="Messages per phone"
        headers={[
          'Phone',
          ...SENT_STATUSES.map((status) => STATUS_LABELS[status]),
          'Sent',
          'Received',
        ]}
        rows={volumes.map((volume, i) => [
          names[i],
          ...SENT_STATUSES.map((status) => volume[status]),
          volume.received,
        ])}
      />
    </>
  );
}
