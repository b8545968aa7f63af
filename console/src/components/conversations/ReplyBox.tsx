import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { CONVERSATIONS_KEY, sendReply } from '../../api/conversations';
import { Field, FormError } from '../forms/Field';
import { showApiError } from '../forms/api-errors';

interface ReplyForm {
  text: string;
}

/**
 * Writes to the conversation's number: the message is scheduled now and joins the thread once
 * a phone has sent it. `phoneId`: the phone the conversation last went through, so that the
 * correspondent gets the answer from the number they wrote to; null lets the dispatch choose.
 */
export function ReplyBox({ number, phoneId }: { number: string; phoneId: number | null }) {
  const queryClient = useQueryClient();
  const form = useForm<ReplyForm>({ defaultValues: { text: '' } });
  const send = useMutation({
    mutationFn: ({ text }: ReplyForm) => sendReply(number, text, phoneId),
    onSuccess: async () => {
      form.reset();
      await queryClient.invalidateQueries({ queryKey: CONVERSATIONS_KEY });
    },
    onError: (error) => showApiError(error, ['text'], form.setError),
  });
  const { errors } = form.formState;

  return (
    <form
      className="reply-box"
      onSubmit={(event) => void form.handleSubmit((values) => send.mutate(values))(event)}
    >
      <Field
        label="Reply"
        error={errors.text?.message}
        hint={
          phoneId === null
            ? undefined
            : "Goes out through the phone of the conversation's last message."
        }
        render={(props) => (
          <textarea
            {...props}
            rows={3}
            {...form.register('text', { required: 'Write the text of the reply.' })}
          />
        )}
      />
      <FormError errors={errors} />
      <div className="reply-actions">
        <button type="submit" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send'}
        </button>
        {send.isSuccess && (
          <p className="reply-sent" role="status">
            Queued: it appears in the thread once sent.
          </p>
        )}
      </div>
    </form>
  );
}
