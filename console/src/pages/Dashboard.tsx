import type { ReactNode } from 'react';
import { useId } from 'react';
import { useQuery } from '@tanstack/react-query';
import { listPhoneStatuses, PHONE_STATUSES_KEY } from '../api/phones';
import { getDailyStats, getReliabilityAlerts, STATS_KEYS } from '../api/stats';
import { LoadError } from '../components/common/LoadError';
import { DeliveryChart } from '../components/dashboard/DeliveryChart';
import { PeriodPicker } from '../components/dashboard/PeriodPicker';
import { PhoneStatuses } from '../components/dashboard/PhoneStatuses';
import { PhoneVolumes } from '../components/dashboard/PhoneVolumes';
import { QueueNow } from '../components/dashboard/QueueNow';
import { QuotaUse } from '../components/dashboard/QuotaUse';
import { ReceivedChart } from '../components/dashboard/ReceivedChart';
import { usePeriod } from '../components/dashboard/period';
import './Dashboard.css';

/** One card of the dashboard: a region named by its heading, so that it can be found and skipped. */
function Card({ title, wide, children }: { title: string; wide?: boolean; children: ReactNode }) {
  const id = useId();
  return (
    <section className={wide ? 'card wide' : 'card'} aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** What a card shows while its data loads, or when it could not be loaded. */
function Pending({ error, retry }: { error: Error | null; retry: () => unknown }) {
  return error ? <LoadError error={error} retry={retry} /> : <p>Loading…</p>;
}

/**
 * The account at a glance for a period (the last 30 days unless the address names one): what
 * was sent and received, by day and by phone, the queue and the phones now, and the quota.
 */
export default function Dashboard() {
  const [period, choose] = usePeriod();
  const daily = useQuery({
    queryKey: STATS_KEYS.daily(period),
    queryFn: () => getDailyStats(period),
  });
  const alerts = useQuery({
    queryKey: STATS_KEYS.reliability(period),
    queryFn: () => getReliabilityAlerts(period),
  });
  const phones = useQuery({ queryKey: PHONE_STATUSES_KEY, queryFn: listPhoneStatuses });

  return (
    <div className="dashboard">
      <h1>Dashboard</h1>
      <PeriodPicker period={period} choose={choose} />
      <p className="period-shown">
        From {period.start} to {period.end}, both days included.
      </p>
      <div className="dashboard-grid">
        <Card title="Messages sent per day" wide>
          {daily.isSuccess ? (
            <DeliveryChart days={daily.data.days} period={period} />
          ) : (
            <Pending error={daily.error} retry={daily.refetch} />
          )}
        </Card>
        <Card title="Queue now">
          <QueueNow />
        </Card>
        <Card title="Messages received per day" wide>
          {daily.isSuccess ? (
            <ReceivedChart days={daily.data.days} period={period} />
          ) : (
            <Pending error={daily.error} retry={daily.refetch} />
          )}
        </Card>
        <Card title="Quota">
          <QuotaUse />
        </Card>
        <Card title="Volume per phone" wide>
          {daily.isSuccess && phones.isSuccess ? (
            <PhoneVolumes volumes={daily.data.phones} phones={phones.data} period={period} />
          ) : (
            <Pending
              error={daily.error ?? phones.error}
              retry={() => (daily.isError ? daily.refetch() : phones.refetch())}
            />
          )}
        </Card>
        <Card title="Phones">
          {phones.isSuccess && alerts.isSuccess ? (
            <PhoneStatuses phones={phones.data} alerts={alerts.data} />
          ) : (
            <Pending
              error={phones.error ?? alerts.error}
              retry={() => (phones.isError ? phones.refetch() : alerts.refetch())}
            />
          )}
        </Card>
      </div>
    </div>
  );
}
