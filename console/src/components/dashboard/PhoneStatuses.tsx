import type { PhoneStatus, PhoneSummary } from '../../api/phones';
import type { ReliabilityAlert, ReliabilityAlerts } from '../../api/stats';
import { count } from './period';

const STATUS_NAMES: Record<PhoneStatus, string> = {
  available: 'Available',
  unavailable: 'Unavailable',
  no_credit: 'No credit',
  limit_reached: 'Limit reached',
  disabled: 'Disabled',
};

const PERCENT = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

/**
 * One alert in words: when the check raised it, and how many of how many messages it judged
 * (alerts older than those figures have none).
 */
function alertText(alert: ReliabilityAlert): string {
  const what = alert.type === 'failed' ? 'failed' : 'without a receipt';
  const when = alert.at.slice(0, 16);
  if (alert.total === null || alert.unreliable === null || alert.rate === null) {
    return `${when}: too many ${what}`;
  }
  return (
    `${when}: ${count(alert.unreliable)} of ${count(alert.total)} ${what} ` +
    `(${PERCENT.format(alert.rate)})`
  );
}

/** Each phone's status now, and the reliability alerts it raised in the period. */
export function PhoneStatuses({
  phones,
  alerts,
}: {
  phones: PhoneSummary[];
  alerts: ReliabilityAlerts;
}) {
  if (phones.length === 0) {
    return <p>This account has no phone yet.</p>;
  }
  return (
    <div className="table-scroll" tabIndex={0}>
      <table className="phone-statuses">
        <caption>Phones and their reliability alerts in the period</caption>
        <thead>
          <tr>
            <th scope="col">Phone</th>
            <th scope="col">Status</th>
            <th scope="col">Reliability alerts</th>
          </tr>
        </thead>
        <tbody>
          {phones.map((phone) => {
            const own = alerts.filter((alert) => alert.id_phone === phone.id);
            return (
              <tr key={phone.id}>
                <th scope="row">{phone.name}</th>
                <td>
                  <span className={`phone-status phone-status-${phone.status}`}>
                    {STATUS_NAMES[phone.status]}
                  </span>
                </td>
                <td>
                  {own.length === 0 ? (
                    'None'
                  ) : (
                    <ul className="alerts">
                      {own.map((alert) => (
                        <li key={`${alert.type} ${alert.at}`}>{alertText(alert)}</li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
