import { NavLink } from 'react-router';

/** A tab: where it leads and what it says. */
export interface SectionTab {
  to: string;
  label: string;
}

/** The tabs of a page's sections, the current one marked by its address. */
export function SectionTabs({
  label,
  tabs,
  className,
}: {
  label: string;
  tabs: readonly SectionTab[];
  className?: string;
}) {
  return (
    <nav className={className ? `section-tabs ${className}` : 'section-tabs'} aria-label={label}>
      <ul>
        {tabs.map(({ to, label: text }) => (
          <li key={to}>
            <NavLink to={to}>{text}</NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
