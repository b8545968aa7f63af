import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  deleteWebhook,
  deliveriesKey,
  getWebhook,
  testWebhook,
  updateWebhook,
  type Webhook,
  webhookKey,
  WEBHOOKS_KEY,
} from '../../api/webhooks';
import { LoadError } from '../common/LoadError';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { Facts } from '../messages/Facts';
import { DeliveryLog } from './DeliveryLog';
import { EnabledBadge } from './EnabledBadge';
import { TestResult } from './TestResult';
import { WebhookForm } from './WebhookForm';
import { WebhookSecret } from './WebhookSecret';

function BackToWebhooks() {
  return (
    <p className="back">
      <Link to="/webhooks">← Back to webhooks</Link>
    </p>
  );
}

/**
 * One webhook: where it goes and what it receives, its secret, a test, turning it on and off,
 * its form, deleting it, and its delivery log.
 */
export function WebhookDetail() {
  const id = Number(useParams().id);
  const webhook = useQuery({ queryKey: webhookKey(id), queryFn: () => getWebhook(id) });
  if (webhook.isPending) {
    return <p role="status">Loading…</p>;
  }
  if (webhook.isError) {
    return (
      <section>
        <BackToWebhooks />
        <LoadError error={webhook.error} retry={webhook.refetch} />
      </section>
    );
  }
  return <WebhookView webhook={webhook.data} />;
}

function WebhookView({ webhook }: { webhook: Webhook }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [testId, setTestId] = useState<number | null>(null);
  const saved = async (changed: Webhook) => {
    queryClient.setQueryData(webhookKey(webhook.id), changed);
    await queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY, exact: true });
  };
  const test = useMutation({
    mutationFn: () => testWebhook(webhook.id),
    onSuccess: async (deliveryId) => {
      setTestId(deliveryId);
      await queryClient.invalidateQueries({ queryKey: deliveriesKey(webhook.id, 0) });
    },
  });
  const toggle = useMutation({
    mutationFn: () => updateWebhook(webhook.id, { enabled: !webhook.enabled }),
    onSuccess: async (changed) => {
      await saved(changed);
      // Disabling fails the deliveries that waited: the log says so.
      await queryClient.invalidateQueries({
        queryKey: [...WEBHOOKS_KEY, webhook.id, 'deliveries'],
      });
    },
  });
  return (
    <section aria-labelledby="webhook-title" className="webhook-detail">
      <BackToWebhooks />
      <h2 id="webhook-title">Webhook {webhook.id}</h2>
      <Facts
        facts={[
          ['URL', webhook.url],
          ['Events', webhook.type],
          ['Format', webhook.format],
          ['State', <EnabledBadge key="state" enabled={webhook.enabled} />],
          ['Created', webhook.created_at],
          ['Changed', webhook.updated_at],
        ]}
      />
      <h3>Signing secret</h3>
      <p className="hint">
        Each delivery is signed with this secret: your receiver checks the signature with it.
      </p>
      <WebhookSecret secret={webhook.secret} />
      <div className="detail-actions">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          {test.isPending ? 'Sending…' : 'Send a test'}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => toggle.mutate()}
          disabled={toggle.isPending}
        >
          {webhook.enabled ? 'Disable' : 'Enable'}
        </button>
        <ConfirmDelete
          what={`the webhook to ${webhook.url}`}
          remove={() => deleteWebhook(webhook.id)}
          onDeleted={async () => {
            queryClient.removeQueries({ queryKey: [...WEBHOOKS_KEY, webhook.id] });
            await queryClient.invalidateQueries({ queryKey: WEBHOOKS_KEY, exact: true });
            await navigate('/webhooks', { replace: true });
          }}
        />
      </div>
      {test.isError && (
        <p className="error" role="alert">
          {test.error.message}
        </p>
      )}
      {toggle.isError && (
        <p className="error" role="alert">
          {toggle.error.message}
        </p>
      )}
      {testId !== null && <TestResult webhookId={webhook.id} deliveryId={testId} />}
      <h3>Change this webhook</h3>
      <WebhookForm
        webhook={webhook}
        submitLabel="Save changes"
        save={(fields) => updateWebhook(webhook.id, fields).then(saved)}
        onSaved={() => undefined}
      />
      <h3>Delivery log</h3>
      <DeliveryLog webhookId={webhook.id} enabled={webhook.enabled} />
    </section>
  );
}
