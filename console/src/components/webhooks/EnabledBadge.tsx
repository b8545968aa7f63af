/** Whether a webhook is on, in words and in a colour that repeats them. */
export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return (
    <span className={`badge ${enabled ? 'badge-good' : 'badge-off'}`}>
      {enabled ? 'enabled' : 'disabled'}
    </span>
  );
}

/** A delivery's status: pending, delivered or failed. */
export function DeliveryBadge({ status }: { status: string }) {
  const tone = status === 'delivered' ? 'good' : status === 'failed' ? 'bad' : 'wait';
  return <span className={`badge badge-${tone}`}>{status}</span>;
}
