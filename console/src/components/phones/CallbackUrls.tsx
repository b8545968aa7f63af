import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { type PhoneDetails, renewCallbackToken } from '../../api/phones';
import { phonesChanged } from './keys';

const LABELS = {
  status: 'Delivery receipts URL',
  reception: 'Received messages URL',
} as const;

/**
 * The URLs to paste at the provider, each with a copy button, and a way to replace them when
 * they leaked: the old ones stop working at once.
 */
export function CallbackUrls({ phone }: { phone: PhoneDetails }) {
  const id = useId();
  const client = useQueryClient();
  const [copied, setCopied] = useState('');
  const [asking, setAsking] = useState(false);
  const renew = useMutation({
    mutationFn: () => renewCallbackToken(phone.id),
    onSuccess: async () => {
      setAsking(false);
      setCopied('');
      await phonesChanged(client);
    },
  });

  async function copy(kind: keyof typeof LABELS, url: string) {
    try {
      if (!navigator.clipboard) {
        throw new Error('no clipboard');
      }
      await navigator.clipboard.writeText(url);
      setCopied(`${LABELS[kind]} copied.`);
    } catch {
      setCopied(`This browser does not let the page copy: select the ${LABELS[kind]} and copy it.`);
    }
  }

  return (
    <section className="callback-urls" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Callback URLs</h3>
      {phone.callbackUrls === null ? (
        <p>
          The server has no public address (PUBLIC_URL) yet: the URLs your provider calls appear
          here once it has.
        </p>
      ) : (
        <>
          <p className="hint">Paste them where your provider asks for its callbacks.</p>
          <dl>
            {(Object.keys(LABELS) as Array<keyof typeof LABELS>).map((kind) => {
              const url = phone.callbackUrls![kind];
              return (
                <div key={kind} className="callback-url">
                  <dt>{LABELS[kind]}</dt>
                  <dd>
                    <code>{url}</code>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Copy the ${LABELS[kind]}`}
                      onClick={() => void copy(kind, url)}
                    >
                      Copy
                    </button>
                  </dd>
                </div>
              );
            })}
          </dl>
          <p role="status">{copied}</p>
          {asking ? (
            <div className="confirm-delete" role="group" aria-labelledby={`${id}-question`}>
              <p id={`${id}-question`}>
                Replace both URLs? The ones your provider has stop working at once.
              </p>
              <div className="actions">
                <button
                  type="button"
                  className="danger"
                  onClick={() => renew.mutate()}
                  disabled={renew.isPending}
                >
                  Yes, new URLs
                </button>
                <button
                  type="button"
                  className="secondary"
                  autoFocus
                  onClick={() => setAsking(false)}
                >
                  Cancel
                </button>
              </div>
            </div>
          ) : (
            <button type="button" className="secondary" onClick={() => setAsking(true)}>
              New callback URLs
            </button>
          )}
          {renew.isError && (
            <p className="error" role="alert">
              {renew.error.message}
            </p>
          )}
        </>
      )}
    </section>
  );
}
