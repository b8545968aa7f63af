/** A message's status, in words and in a colour that repeats them. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`status-badge status-${status}`}>{status}</span>;
}
