import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Controller, FormProvider, useForm } from 'react-hook-form';
import {
  type ConditionalGroup,
  CONDITIONAL_GROUPS_KEY,
  searchConditionalGroups,
} from '../api/conditional-groups';
import { type Contact, CONTACTS_KEY, searchContacts } from '../api/contacts';
import { type Group, GROUPS_KEY, searchGroups } from '../api/groups';
import { createScheduled, type NewScheduled, SCHEDULED_KEY } from '../api/scheduled';
import { getSettings, isOn, SETTINGS_KEY } from '../api/settings';
import { LoadError } from '../components/common/LoadError';
import { showApiError } from '../components/forms/api-errors';
import { Field, FormError } from '../components/forms/Field';
import { EntryPicker } from '../components/common/EntryPicker';
import {
  DELIVERY_API_FIELDS,
  DELIVERY_DEFAULTS,
  DeliveryOptions,
  type DeliveryFields,
  deliveryOf,
} from '../components/send/DeliveryOptions';
import { contactLabel } from '../components/send/labels';
import { AUTOMATIC, phoneChoice, PhoneSelect } from '../components/send/PhoneSelect';
import { ScheduledResult } from '../components/send/ScheduledResult';
import { SmsCount } from '../components/send/SmsCount';
import { TextPreview } from '../components/send/TextPreview';
import './Send.css';
import { SENDED_KEY } from '../api/sended';

interface SendFields extends DeliveryFields {
  numbers: string;
  contacts: Contact[];
  groups: Group[];
  conditional_groups: ConditionalGroup[];
  /** The `numbers_csv` file; the API names it `csv` in its messages. */
  csv: FileList | null;
  text: string;
  when: 'now' | 'later';
  /** `YYYY-MM-DDTHH:MM` as the date input gives it. */
  at: string;
  /** AUTOMATIC, `phone:<id>` or `group:<id>` (see PhoneSelect). */
  id_phone: string;
  /** No control of its own: where the API's refusal of a phone group shows, under id_phone. */
  id_phone_group: string;
  flash: boolean;
  mms: boolean;
  medias: FileList | null;
  tag: string;
}

const EMPTY: SendFields = {
  numbers: '',
  contacts: [],
  groups: [],
  conditional_groups: [],
  csv: null,
  text: '',
  when: 'now',
  at: '',
  id_phone: AUTOMATIC,
  id_phone_group: '',
  flash: false,
  mms: false,
  medias: null,
  tag: '',
  ...DELIVERY_DEFAULTS,
};

/** The fields the API's messages name, in the order a person reads the form. */
const API_FIELDS = [
  'numbers',
  'contacts',
  'groups',
  'conditional_groups',
  'csv',
  'text',
  'at',
  'id_phone',
  'id_phone_group',
  'flash',
  'mms',
  'medias',
  'tag',
  ...DELIVERY_API_FIELDS,
] as const;

/** The numbers typed, one per line or separated by commas or semicolons. */
function numbersOf(typed: string): string[] {
  return typed
    .split(/[\n,;]+/)
    .map((number) => number.trim())
    .filter(Boolean);
}

/** The form's values as post_scheduled takes them. */
function messageOf(fields: SendFields): NewScheduled {
  return {
    text: fields.text,
    // The date input gives `YYYY-MM-DDTHH:MM`, with `:SS` when the seconds are not zero.
    at: fields.when === 'later' ? `${fields.at.replace('T', ' ')}:00`.slice(0, 19) : undefined,
    numbers: numbersOf(fields.numbers),
    contacts: fields.contacts.map((contact) => contact.id),
    groups: fields.groups.map((group) => group.id),
    conditional_groups: fields.conditional_groups.map((group) => group.id),
    ...phoneChoice(fields.id_phone),
    flash: fields.flash,
    mms: fields.mms,
    tag: fields.tag || undefined,
    ...deliveryOf(fields),
  };
}

/**
 * The Send page: a message to numbers, contacts, groups, conditional groups or a CSV of numbers,
 * now or later, through a chosen phone or phone group or the one smsgw chooses; its text counted
 * live as the dispatch counts it, and previewed for a contact when templating is on; its priority,
 * validity and send window among the delivery options. Once sent, the scheduled message as the API
 * has it.
 */
export default function Send() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: SETTINGS_KEY, queryFn: getSettings });
  const [created, setCreated] = useState<{ id: number; dueNow: boolean } | null>(null);
  const form = useForm<SendFields>({ defaultValues: EMPTY });
  const {
    control,
    formState: { errors },
    handleSubmit,
    register,
    reset,
    setError,
    watch,
  } = form;
  const send = useMutation({
    mutationFn: (fields: SendFields) =>
      createScheduled(messageOf(fields), {
        numbersCsv: fields.csv?.[0],
        medias: fields.mms && fields.medias ? [...fields.medias] : [],
      }),
    onSuccess: async (id, fields) => {
      setCreated({ id, dueNow: fields.when === 'now' });
      reset(EMPTY);
      await queryClient.invalidateQueries({ queryKey: SCHEDULED_KEY });
      await queryClient.invalidateQueries({ queryKey: SENDED_KEY });
    },
    onError: (error) => showApiError(error, API_FIELDS, setError),
  });

  if (settings.isPending) {
    return <p className="muted">Loading…</p>;
  }
  if (settings.isError) {
    return (
      <section>
        <h1>Send a message</h1>
        <LoadError error={settings.error} retry={settings.refetch} />
      </section>
    );
  }
  const templating = isOn(settings.data, 'templating');
  const gsm = isOn(settings.data, 'force_gsm_alphabet');
  const mmsAllowed = isOn(settings.data, 'mms');
  const text = watch('text');
  const when = watch('when');
  const mms = watch('mms');

  return (
    <section className="send-page">
      <h1>Send a message</h1>
      {created !== null && (
        <ScheduledResult key={created.id} id={created.id} dueNow={created.dueNow} />
      )}
      {/* A new form after each send: the pickers' searches go with the message sent. */}
      <form
        key={created?.id ?? 'first'}
        className="send-form"
        noValidate
        onSubmit={(event) => void handleSubmit((fields) => send.mutate(fields))(event)}
      >
        <fieldset className="recipients">
          <legend>Recipients</legend>
          <Field
            label="Numbers"
            error={errors.numbers?.message}
            hint="One per line, international (+33612345678) or national in your default country."
            render={(props) => <textarea {...props} rows={3} {...register('numbers')} />}
          />
          <details>
            <summary>Contacts ({watch('contacts').length})</summary>
            <Controller
              control={control}
              name="contacts"
              render={({ field }) => (
                <EntryPicker<Contact>
                  label="Contacts"
                  searchLabel="Search contacts by name"
                  queryKey={CONTACTS_KEY}
                  load={searchContacts}
                  chosen={field.value}
                  onChange={field.onChange}
                  describe={contactLabel}
                  error={errors.contacts?.message}
                />
              )}
            />
          </details>
          <details>
            <summary>Groups ({watch('groups').length})</summary>
            <Controller
              control={control}
              name="groups"
              render={({ field }) => (
                <EntryPicker<Group>
                  label="Groups"
                  searchLabel="Search groups by name"
                  queryKey={GROUPS_KEY}
                  load={searchGroups}
                  chosen={field.value}
                  onChange={field.onChange}
                  describe={(group) => `${group.name} (${group.nb_contact})`}
                  error={errors.groups?.message}
                />
              )}
            />
          </details>
          <details>
            <summary>Conditional groups ({watch('conditional_groups').length})</summary>
            <Controller
              control={control}
              name="conditional_groups"
              render={({ field }) => (
                <EntryPicker<ConditionalGroup>
                  label="Conditional groups"
                  searchLabel="Search conditional groups by name"
                  queryKey={CONDITIONAL_GROUPS_KEY}
                  load={searchConditionalGroups}
                  chosen={field.value}
                  onChange={field.onChange}
                  error={errors.conditional_groups?.message}
                />
              )}
            />
          </details>
          <Field
            label="Numbers from a CSV file"
            error={errors.csv?.message}
            hint="The first line is a header; the first column is the number, the others are template data named by their header."
            render={(props) => (
              <input {...props} type="file" accept=".csv,text/csv" {...register('csv')} />
            )}
          />
        </fieldset>

        <fieldset className="message">
          <legend>Message</legend>
          <Field
            label="Text"
            error={errors.text?.message}
            hint={<SmsCount text={text} gsm={gsm} />}
            render={(props) => (
              <textarea
                {...props}
                rows={6}
                {...register('text', { required: 'Write the text of the message.' })}
              />
            )}
          />
          {templating && (
            <>
              <p className="muted">
                Templating is on: <code>{'{{ contact.firstname }}'}</code> prints the recipient’s
                data, <code>{'{{ contact_metas.name }}'}</code> a contact’s name. The count above is
                of the text as written.
              </p>
              <TextPreview text={text} />
            </>
          )}
        </fieldset>

        <fieldset className="sending">
          <legend>Sending</legend>
          <div className="when-block">
            <fieldset className="when">
              <legend>When</legend>
              <label>
                <input type="radio" value="now" {...register('when')} /> Now
              </label>
              <label>
                <input type="radio" value="later" {...register('when')} /> Later
              </label>
            </fieldset>
            {when === 'later' && (
              <Field
                label="Date and time"
                error={errors.at?.message}
                hint="In smsgw’s time zone, as the API shows dates."
                render={(props) => (
                  <input
                    {...props}
                    type="datetime-local"
                    step={1}
                    {...register('at', {
                      validate: (value, fields) =>
                        fields.when === 'now' || value !== '' || 'Choose when to send it.',
                    })}
                  />
                )}
              />
            )}
          </div>
          <Field
            label="Phone"
            error={errors.id_phone?.message ?? errors.id_phone_group?.message}
            render={(props) => <PhoneSelect {...props} {...register('id_phone')} />}
          />
          <Field
            label="Tag"
            error={errors.tag?.message}
            hint="Optional: marks every SMS of the message, to find them later."
            render={(props) => <input {...props} type="text" {...register('tag')} />}
          />
          <div className="flags">
            <label className="check">
              <input type="checkbox" {...register('flash')} /> Flash SMS (shown at once, not stored)
            </label>
            {errors.flash && <p className="error">{errors.flash.message}</p>}
            {mmsAllowed && (
              <>
                <label className="check">
                  <input type="checkbox" {...register('mms')} /> MMS, with media files
                </label>
                {errors.mms && <p className="error">{errors.mms.message}</p>}
                {mms && (
                  <Field
                    label="Media files"
                    error={errors.medias?.message}
                    render={(props) => (
                      <input {...props} type="file" multiple {...register('medias')} />
                    )}
                  />
                )}
              </>
            )}
          </div>
          <FormProvider {...form}>
            <DeliveryOptions />
          </FormProvider>
        </fieldset>

        <FormError errors={errors} />
        <button type="submit" className="send-button" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : when === 'later' ? 'Schedule' : 'Send'}
        </button>
      </form>
    </section>
  );
}
