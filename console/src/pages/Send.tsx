import { Placeholder } from './Placeholder';

export default function Send() {
  return <Placeholder title="Send" />;
}
