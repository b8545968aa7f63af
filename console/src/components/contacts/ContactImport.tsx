import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ApiError } from '../../api/client';
import { CONTACTS_KEY, importContacts, type UploadProgress } from '../../api/contacts';

/**
 * Where the API says a file was refused: post_import_contacts names the line and the reason
 * after `contacts_csv : ` (`line 7: number : "+336" is not a valid phone number…`).
 */
export function refusalOf(message: string): { line: number | null; reason: string } {
  const detail = message.slice(message.indexOf('contacts_csv : ') + 'contacts_csv : '.length);
  const line = /^line (\d+)(: )?/.exec(detail);
  if (!line) {
    return { line: null, reason: detail };
  }
  return { line: Number(line[1]), reason: line[2] ? detail.slice(line[0].length) : detail };
}

/**
 * Imports contacts from a CSV file whose header names `name` and `number`, the other columns
 * being template data. The upload shows its progress; the API imports all or nothing, and a
 * refused file is told by its line and reason.
 */
export function ContactImport() {
  const id = useId();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const upload = useMutation({
    mutationFn: (chosen: File) => {
      setProgress({ loaded: 0, total: chosen.size });
      return importContacts(chosen, setProgress);
    },
    onSuccess: () => queryClient.removeQueries({ queryKey: CONTACTS_KEY }),
  });
  const refusal =
    upload.error instanceof ApiError && upload.error.message.includes('contacts_csv : ')
      ? refusalOf(upload.error.message)
      : null;

  return (
    <section aria-labelledby={`${id}-title`} className="contact-import">
      <h2 id={`${id}-title`}>Import contacts from a CSV file</h2>
      <p>
        The first line names the columns: <code>name</code> and <code>number</code>, in any order;
        every other column is a data key (<code>firstname</code> is{' '}
        <code>{'{{ contact.firstname }}'}</code> in a template). A contact whose name you already
        have is updated. Any refused line refuses the whole file, and nothing is imported.
      </p>
      <form
        className="entry-form"
        aria-label="Import contacts"
        onSubmit={(event) => {
          event.preventDefault();
          if (file) {
            upload.mutate(file);
          }
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-file`}>CSV file</label>
          <input
            id={`${id}-file`}
            type="file"
            accept=".csv,text/csv"
            aria-invalid={upload.isError}
            aria-describedby={upload.isError ? `${id}-error` : undefined}
            onChange={(event) => {
              setFile(event.target.files?.[0] ?? null);
              upload.reset();
            }}
          />
        </div>
        <button type="submit" disabled={!file || upload.isPending}>
          {upload.isPending ? 'Importing…' : 'Import'}
        </button>
      </form>
      {(upload.isPending || upload.isSuccess) && progress && (
        <div className="upload-progress">
          <label htmlFor={`${id}-progress`}>Upload</label>
          <progress id={`${id}-progress`} value={progress.loaded} max={progress.total} />
          <span>
            {Math.round((100 * progress.loaded) / Math.max(progress.total, 1))}%
            {upload.isPending && progress.loaded >= progress.total && ', importing…'}
          </span>
        </div>
      )}
      {upload.isSuccess && (
        <p className="saved" role="status">
          Imported {upload.data.created + upload.data.updated}{' '}
          {upload.data.created + upload.data.updated === 1 ? 'contact' : 'contacts'}:{' '}
          {upload.data.created} created, {upload.data.updated} updated.
        </p>
      )}
      {upload.isError && (
        <div id={`${id}-error`} className="import-refusal" role="alert">
          {refusal ? (
            <>
              <p>The file was refused; nothing was imported.</p>
              <dl className="refusal-facts">
                {refusal.line !== null && (
                  <div>
                    <dt>Line</dt>
                    <dd>{refusal.line}</dd>
                  </div>
                )}
                <div>
                  <dt>Reason</dt>
                  <dd>{refusal.reason}</dd>
                </div>
              </dl>
            </>
          ) : (
            <p className="error">{upload.error.message}</p>
          )}
        </div>
      )}
    </section>
  );
}
