/** A phone's status, in words and in a colour that repeats them. */
export function PhoneStatusBadge({ status }: { status: string }) {
  return <span className={`phone-status phone-status-${status}`}>{status.replace('_', ' ')}</span>;
}
