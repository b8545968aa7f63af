import '../common/common.css';
import { useRef, useState } from 'react';
import { newApiKey } from '../../api/account';
import { Field, FormError } from '../forms/Field';
import { PasswordField } from '../forms/PasswordField';
import { SavedNote, SubmitButton } from '../forms/SubmitButton';
import { useApiForm } from '../forms/useApiForm';

interface Values {
  password: string;
}

/**
 * A new API key, after a warning: the old key stops working at once. The key is held only by
 * this component, so it is gone once the person leaves the page: the API never shows it again.
 */
export function ApiKeyPanel() {
  const [asking, setAsking] = useState(false);
  const [key, setKey] = useState<string | null>(null);
  const {
    register,
    reset,
    errors,
    mutation: replace,
    onSubmit,
  } = useApiForm({
    defaultValues: { password: '' },
    fields: ['password'],
    request: ({ password }: Values) => password,
    mutationFn: newApiKey,
    // Not kept in the mutation cache once the page is left: the key lives in this component only.
    gcTime: 0,
    onSuccess: (made) => {
      setKey(made);
      setAsking(false);
      reset();
    },
  });
  return (
    <section aria-labelledby="api-key-title">
      <h2 id="api-key-title">API key</h2>
      <p className="intro">
        Scripts and other programs use the API with your key. smsgw keeps only a fingerprint of it,
        so it cannot show the current key: make a new one if it is lost.
      </p>
      {key && <NewKey value={key} />}
      {!asking ? (
        <button type="button" onClick={() => setAsking(true)}>
          Make a new API key
        </button>
      ) : (
        <form
          className="api-key-confirm"
          aria-labelledby="api-key-warning"
          onSubmit={onSubmit}
          noValidate
        >
          <p id="api-key-warning" className="warning" role="alert">
            The current key stops working at once: every script or program using it is refused until
            it is given the new one.
          </p>
          <PasswordField
            label="Your password"
            error={errors.password?.message}
            registration={register('password')}
            autoComplete="current-password"
            autoFocus
          />
          <FormError errors={errors} />
          <div className="actions">
            <SubmitButton
              className="danger"
              label="Replace my API key"
              pendingLabel="Replacing…"
              pending={replace.isPending}
            />
            <button
              type="button"
              className="secondary"
              onClick={() => {
                replace.reset();
                reset();
                setAsking(false);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** The new key, once, with a copy button; where the clipboard is refused, the key is selected. */
function NewKey({ value }: { value: string }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'by-hand' | null>(null);

  async function copy() {
    try {
      // Absent outside a secure context (plain http on another host than localhost).
      if (!navigator.clipboard) {
        throw new Error('no clipboard');
      }
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      input.current?.focus();
      input.current?.select();
      setCopied('by-hand');
    }
  }

  return (
    <div className="new-key">
      <Field
        label="Your new API key"
        hint="Shown only now: copy it and keep it safe. It will not be shown again once you leave this page."
        render={(props) => (
          <input
            {...props}
            ref={input}
            value={value}
            readOnly
            spellCheck={false}
            onFocus={(event) => event.currentTarget.select()}
          />
        )}
      />
      <button type="button" onClick={() => void copy()}>
        Copy the key
      </button>
      {copied && (
        <SavedNote>
          {copied === 'yes'
            ? 'Copied.'
            : 'The browser refused to copy: the key is selected, copy it with Ctrl+C (⌘C on a Mac).'}
        </SavedNote>
      )}
    </div>
  );
}
