import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <article>
      <h2>Not found</h2>
      <p>
        Nothing is here. <Link to="/agents">Back to the agents</Link>.
      </p>
    </article>
  );
}
