import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Route, Routes, useNavigate } from 'react-router';
import { createWebhook, listWebhooks, WEBHOOKS_KEY } from '../api/webhooks';
import { LoadError } from '../components/common/LoadError';
import { WebhookDetail } from '../components/webhooks/WebhookDetail';
import { WebhookForm } from '../components/webhooks/WebhookForm';
import { WebhookTable } from '../components/webhooks/WebhookTable';
import './Webhooks.css';

/**
 * The user's webhooks: the list, adding one, and each one's page with its test, its secret, its
 * form and its delivery log.
 */
export default function Webhooks() {
  return (
    <section className="webhooks" aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <Routes>
        <Route index element={<WebhookList />} />
        <Route path="new" element={<NewWebhook />} />
        <Route path=":id" element={<WebhookDetail />} />
      </Routes>
    </section>
  );
}

function WebhookList() {
  const webhooks = useQuery({ queryKey: WEBHOOKS_KEY, queryFn: listWebhooks });
  return (
    <>
      <p>
        A webhook posts each event of one type (a message sent or received, a status, an alert) to
        one of your systems, as it happens.
      </p>
      <p>
        <Link to="new" className="button-link">
          Add a webhook
        </Link>
      </p>
      {webhooks.isPending && <p role="status">Loading…</p>}
      {webhooks.isError && <LoadError error={webhooks.error} retry={webhooks.refetch} />}
      {webhooks.isSuccess &&
        (webhooks.data.length === 0 ? (
          <p className="empty">No webhook yet.</p>
        ) : (
          <WebhookTable webhooks={webhooks.data} />
        ))}
    </>
  );
}

function NewWebhook() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <section aria-labelledby="new-webhook-title" className="webhook-detail">
      <p className="back">
        <Link to="/webhooks">← Back to webhooks</Link>
      </p>
      <h2 id="new-webhook-title">Add a webhook</h2>
      <WebhookForm
        submitLabel="Add the webhook"
        save={async ({ url = '', type = 'receive_sms', ...rest }) => {
          const id = await createWebhook({ url, type, ...rest });
          await queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY, exact: true });
          await navigate(`/webhooks/${id}`);
        }}
        onSaved={() => undefined}
      />
    </section>
  );
}
