import { Placeholder } from './Placeholder';

export default function Messages() {
  return <Placeholder title="Messages" />;
}
