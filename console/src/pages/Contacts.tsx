import { Link, Route, Routes } from 'react-router';
import { CONDITIONAL_GROUP } from '../components/contacts/ConditionalGroupPages';
import { ContactImport } from '../components/contacts/ContactImport';
import { ContactList } from '../components/contacts/ContactList';
import { ContactDetail, NewContact } from '../components/contacts/ContactPages';
import { ContactTabs } from '../components/contacts/ContactTabs';
import { GROUP } from '../components/contacts/GroupPages';
import { namedEntryRoutes } from '../components/contacts/NamedEntryPages';
import './Contacts.css';

/**
 * Contacts, groups and conditional groups: each searched and paged by the API with the search
 * in the address, created, changed and deleted; contacts imported from a CSV file; a condition
 * with the contacts it selects as it is written.
 */
export default function Contacts() {
  return (
    <section className="contacts" aria-labelledby="contacts-title">
      <h1 id="contacts-title">Contacts and groups</h1>
      <ContactTabs />
      <Routes>
        <Route index element={<ContactList />} />
        <Route path="new" element={<NewContact />} />
        <Route path="import" element={<ContactImport />} />
        {namedEntryRoutes('groups', GROUP)}
        {namedEntryRoutes('conditional-groups', CONDITIONAL_GROUP)}
        <Route path=":id" element={<ContactDetail />} />
        <Route
          path="*"
          element={
            <p>
              Nothing here. <Link to="/contacts">See the contacts</Link>.
            </p>
          }
        />
      </Routes>
    </section>
  );
}
