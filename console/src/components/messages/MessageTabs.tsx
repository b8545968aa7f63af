import { SectionTabs } from '../common/SectionTabs';

const TABS = [
  { to: '/messages/sent', label: 'Sent' },
  { to: '/messages/received', label: 'Received' },
  { to: '/messages/scheduled', label: 'Scheduled' },
] as const;

/** The three lists of the Messages page; a message's detail keeps its list's tab current. */
export function MessageTabs() {
  return <SectionTabs label="Message lists" tabs={TABS} />;
}
