import { useQuery } from '@tanstack/react-query';
import { ACCOUNT_KEY, getAccount, type Quota } from '../../api/account';
import { LoadError } from '../common/LoadError';
import { count } from './period';

/** A datetime of the quota, without its time when that is midnight, as periods mostly start. */
function moment(datetime: string): string {
  return datetime.replace(/ 00:00:00$/, '');
}

/** The quota's period and how it goes on, in a sentence. */
function QuotaPeriod({ quota }: { quota: Quota }) {
  return (
    <p className="hint">
      SMS segments from <span className="nowrap">{moment(quota.start_date)}</span> to{' '}
      <span className="nowrap">{moment(quota.expiration_date)}</span>
      {quota.additional ? `, ${count(quota.additional)} of them on top of the credit` : ''}
      {quota.auto_renew ? '; renewed when it ends.' : '.'}
    </p>
  );
}

/** The quota of the current period: segments used and left, and when the period ends. */
export function QuotaUse() {
  const account = useQuery({ queryKey: ACCOUNT_KEY, queryFn: getAccount });
  if (account.isPending) {
    return <p>Loading…</p>;
  }
  if (account.isError) {
    return <LoadError error={account.error} retry={account.refetch} />;
  }
  const { quota } = account.data;
  if (!quota) {
    return <p>No quota: this account sends without limit.</p>;
  }
  const allowed = quota.credit + quota.additional;
  const used = quota.consumed;
  const left = quota.remaining;
  return (
    <>
      <meter
        className="quota-meter"
        min={0}
        max={Math.max(allowed, used, 1)}
        value={used}
        low={allowed * 0.75}
        high={allowed * 0.9}
        optimum={0}
        aria-label={`Quota used: ${count(used)} of ${count(allowed)} segments`}
      />
      <dl className="quota">
        <div>
          <dt>Used</dt>
          <dd className="figure">{count(used)}</dd>
        </div>
        <div>
          <dt>Left</dt>
          <dd className="figure">{count(left)}</dd>
        </div>
        <div>
          <dt>Allowed</dt>
          <dd className="figure">{count(allowed)}</dd>
        </div>
      </dl>
      <QuotaPeriod quota={quota} />
    </>
  );
}
