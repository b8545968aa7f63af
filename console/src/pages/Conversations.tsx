import { Placeholder } from './Placeholder';

export default function Conversations() {
  return <Placeholder title="Conversations" />;
}
