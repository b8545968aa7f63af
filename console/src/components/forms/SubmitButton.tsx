import type { ReactNode } from 'react';

/** A form's submit, named for what is under way while the request is. */
export function SubmitButton({
  label,
  pendingLabel,
  pending,
  disabled = false,
  className,
}: {
  label: string;
  pendingLabel: string;
  pending: boolean;
  disabled?: boolean;
  className?: string;
}) {
  return (
    <button type="submit" className={className} disabled={pending || disabled}>
      {pending ? pendingLabel : label}
    </button>
  );
}

/** What a form says once its request succeeded. */
export function SavedNote({ children = 'Saved.' }: { children?: ReactNode }) {
  return (
    <p className="saved" role="status">
      {children}
    </p>
  );
}
