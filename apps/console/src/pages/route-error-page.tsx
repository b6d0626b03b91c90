import { Link, isRouteErrorResponse, useLocation, useNavigate, useRouteError } from 'react-router';

/**
 * What a page shows instead of itself when it fails to render: where it happened and a way on, inside the
 * signed-in layout (its navigation stays), never a stack trace.
 */
export function RouteErrorPage() {
  const error = useRouteError();
  const navigate = useNavigate();
  const location = useLocation();
  const what = isRouteErrorResponse(error) ? `${error.status} ${error.statusText}` : error instanceof Error ? error.message : String(error);
  return (
    <article className="route-error" role="alert">
      <h1>This page ran into a problem</h1>
      <p>
        The console could not show <code>{location.pathname}</code>: {what}
      </p>
      <p>Nothing was sent to the API because of it. Try again, or go back to the agents.</p>
      <div className="row-actions">
        <button type="button" onClick={() => navigate(0)}>
          Try again
        </button>
        <Link to="/agents" role="button" className="secondary">
          Back to the agents
        </Link>
      </div>
    </article>
  );
}
