import type { Delivery } from '../../api/webhooks';

/** How long an attempt took, in words short enough for a narrow column. */
function tookOf(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Every attempt of one delivery the API lists (its latest 20), newest first: when it started,
 * how long it took, the HTTP status the endpoint answered or why there was no answer, and the
 * excerpt of the answer. Says so when the delivery made more attempts than are listed.
 */
export function AttemptList({ delivery, id }: { delivery: Delivery; id: string }) {
  const attempts = delivery.attempt_log;
  const older = delivery.attempt_log_total - attempts.length;
  const unrecorded = delivery.attempts - delivery.attempt_log_total;
  return (
    <div className="attempt-list" id={id}>
      <table className="attempt-table">
        <caption className="visually-hidden">
          Attempts of delivery {delivery.id}, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Result</th>
            <th scope="col">Took</th>
            <th scope="col">Answer</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt) => (
            <tr key={attempt.id}>
              <td className="nowrap">{attempt.started_at}</td>
              <td className={attempt.http_status === null ? 'failure' : 'nowrap'}>
                {attempt.http_status === null ? attempt.error : `HTTP ${attempt.http_status}`}
              </td>
              <td className="nowrap" data-label="Took">
                {tookOf(attempt.duration_ms)}
              </td>
              <td className="answer" data-label="Answer">
                {attempt.answer ?? ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {older > 0 && (
        <p className="attempt-note">
          {older} earlier attempt{older === 1 ? '' : 's'} not listed.
        </p>
      )}
      {unrecorded > 0 && (
        <p className="attempt-note">
          {unrecorded} attempt{unrecorded === 1 ? ' was' : 's were'} made without a record here
          (before attempts were kept, or by a worker that stopped mid-attempt).
        </p>
      )}
    </div>
  );
}
