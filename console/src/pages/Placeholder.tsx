/** A page of the console that is not built yet: its title, so that the navigation leads somewhere. */
export function Placeholder({ title }: { title: string }) {
  return (
    <section>
      <h1>{title}</h1>
      <p>This page is coming.</p>
    </section>
  );
}
