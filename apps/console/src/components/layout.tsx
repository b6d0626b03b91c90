import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { api, setCsrfToken, unwrap } from '../api';
import { signInPath } from '../deep-link';
import { SessionContext, useSessionQuery } from '../session';
import { type Theme, applyTheme, nextTheme, storedTheme } from '../theme';
import { failedLastDayPath } from './failed-runs-path';
import { ErrorNote, Loading } from './feedback';
import { KeyboardShortcuts } from './shortcuts';

/** Every page behind sign-in: the session is known, or the visitor goes to sign-in (or first-run setup). */
export function SignedIn() {
  const session = useSessionQuery();
  if (session.isPending) return <main className="container"><Loading what="your session" /></main>;
  if (session.isError) return <main className="container"><ErrorNote error={session.error} /></main>;
  if (!session.data) return <SignInFirst />;
  return (
    <SessionContext.Provider value={session.data}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header email={session.data.email} />
      <main className="container" id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <KeyboardShortcuts />
    </SessionContext.Provider>
  );
}

/** To sign-in (or first-run setup), keeping the page asked for, to come back to it afterwards. */
function SignInFirst() {
  const location = useLocation();
  const setup = useQuery({ queryKey: ['setup-status'], queryFn: () => unwrap(api.GET('/v1/console/setup')) });
  if (setup.isPending) return <main className="container"><Loading what="the console" /></main>;
  return <Navigate to={setup.data?.setup_required ? '/setup' : signInPath(location.pathname + location.search + location.hash)} replace />;
}

function Header({ email }: { email: string }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/console/logout')),
    onSuccess: () => {
      setCsrfToken(undefined);
      client.clear();
      client.setQueryData(['session'], null);
      void navigate('/login', { replace: true });
    },
  });
  return (
    <header className="container app-header">
      <nav>
        <ul>
          <li>
            <NavLink to="/agents" className="brand">
              <strong>Agent Automation</strong>
            </NavLink>
          </li>
        </ul>
        <ul className="nav-links">
          <li>
            <NavLink to="/agents">Agents</NavLink>
          </li>
          <li>
            <NavLink to="/runs" end>
              All runs
            </NavLink>
          </li>
          <li>
            <FailedRunsLink />
          </li>
          <li>
            <NavLink to="/settings/api-keys">API keys</NavLink>
          </li>
          <li>
            <ThemeToggle />
          </li>
          <li className="who">
            <span className="muted" title={email}>
              {email}
            </span>
          </li>
          <li>
            <button type="button" className="secondary outline small" onClick={() => signOut.mutate()} aria-busy={signOut.isPending}>
              Sign out
            </button>
          </li>
        </ul>
      </nav>
      <ErrorNote error={signOut.error} />
    </header>
  );
}

const THEME_LABELS: Record<Theme, string> = { auto: 'Theme: system', light: 'Theme: light', dark: 'Theme: dark' };

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  return (
    <button
      type="button"
      className="secondary outline small"
      aria-label={THEME_LABELS[theme]}
      title={THEME_LABELS[theme]}
      onClick={() => {
        const next = nextTheme(theme);
        applyTheme(next);
        setTheme(next);
      }}
    >
      {theme === 'auto' ? '◐' : theme === 'light' ? '☀' : '☾'}
    </button>
  );
}

/** The failed runs of the last day, one click away; the 24 hours end when it is clicked, not when the page loaded. */
function FailedRunsLink() {
  const navigate = useNavigate();
  return (
    <a
      href="/console/runs?filter_status=error"
      // A link opened in a new tab takes the time it is pressed, too.
      onPointerDown={(e) => (e.currentTarget.href = `/console${failedLastDayPath(Date.now())}`)}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
        e.preventDefault();
        void navigate(failedLastDayPath(Date.now()));
      }}
    >
      Failed (24 h)
    </a>
  );
}
