import { Link, Route, Routes } from 'react-router';
import { NewPhone } from '../components/phones/NewPhone';
import { PhoneDetail } from '../components/phones/PhoneDetail';
import { PhoneGroupDetail } from '../components/phones/PhoneGroupDetail';
import { PhoneGroupList } from '../components/phones/PhoneGroupList';
import { PhoneList } from '../components/phones/PhoneList';
import { PhonesTabs } from '../components/phones/PhonesTabs';
import './Phones.css';

/**
 * Phones and phone groups: the phones with their status and sending rules, a phone's form made
 * from its adapter's descriptor, its status actions and callback URLs; the groups and their
 * phones.
 */
export default function Phones() {
  return (
    <section className="phones" aria-labelledby="phones-title">
      <h1 id="phones-title">Phones</h1>
      <PhonesTabs />
      <Routes>
        <Route index element={<PhoneList />} />
        <Route path="new" element={<NewPhone />} />
        <Route path="groups" element={<PhoneGroupList />} />
        <Route path="groups/new" element={<PhoneGroupDetail />} />
        <Route path="groups/:id" element={<PhoneGroupDetail />} />
        <Route path=":id" element={<PhoneDetail />} />
        <Route
          path="*"
          element={
            <p>
              No such page. <Link to="/phones">See the phones</Link>.
            </p>
          }
        />
      </Routes>
    </section>
  );
}
