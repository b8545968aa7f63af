/**
 * What a page shows when what it reads could not be loaded: the API's own message (or that smsgw
 * cannot be reached), and a way to try again, never a blank page.
 */
export function LoadError({ error, retry }: { error: Error; retry: () => unknown }) {
  return (
    <div className="load-error" role="alert">
      <p>{error.message}</p>
      <button type="button" onClick={() => void retry()}>
        Try again
      </button>
    </div>
  );
}
