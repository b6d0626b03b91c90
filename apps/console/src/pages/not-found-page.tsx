import { Link } from 'react-router';
import { usePageTitle } from '../components/page-title';

export function NotFoundPage() {
  usePageTitle('Not found');
  return (
    <article>
      <h1>Not found</h1>
      <p>
        Nothing is here. <Link to="/agents">Back to the agents</Link>.
      </p>
    </article>
  );
}
