import { Link } from 'react-router';
import type { Webhook } from '../../api/webhooks';
import { EnabledBadge } from './EnabledBadge';

/** The caller's webhooks, by id: where each goes, what it receives, and whether it is on. */
export function WebhookTable({ webhooks }: { webhooks: Webhook[] }) {
  return (
    <div className="table-scroll">
      <table className="webhook-table">
        <caption className="visually-hidden">Your webhooks</caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Format</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {webhooks.map((webhook) => (
            <tr key={webhook.id}>
              <td className="webhook-url">
                <Link to={String(webhook.id)}>{webhook.url}</Link>
              </td>
              <td data-label="Events">{webhook.type}</td>
              <td data-label="Format">{webhook.format}</td>
              <td className="state-cell">
                <EnabledBadge enabled={webhook.enabled} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
