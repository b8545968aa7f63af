import { useId, useState } from 'react';

/**
 * The webhook's signing secret. The API gives it with the webhook every time it is read, so
 * that a receiver can be set up later; the page keeps it out of sight (and out of screenshots
 * and shoulder views) until asked.
 */
export function WebhookSecret({ secret }: { secret: string }) {
  const id = useId();
  const [shown, setShown] = useState(false);
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div className="webhook-secret">
      <button
        type="button"
        className="secondary"
        aria-expanded={shown}
        aria-controls={id}
        onClick={() => setShown(!shown)}
      >
        {shown ? 'Hide secret' : 'Show secret'}
      </button>
      <button
        type="button"
        className="secondary"
        onClick={() =>
          // Without a secure context (plain http, not localhost) there is no clipboard at all.
          void Promise.resolve()
            .then(() => navigator.clipboard.writeText(secret))
            .then(
              () => setCopied('Secret copied.'),
              () => setCopied('The browser refused to copy: show the secret and copy it by hand.'),
            )
        }
      >
        Copy secret
      </button>
      <code id={id} hidden={!shown} className="secret-value">
        {secret}
      </code>
      {copied && <span role="status">{copied}</span>}
    </div>
  );
}
