import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { api, unwrap } from '../api';
import { ErrorNote } from '../components/feedback';
import { pathAfterSignIn } from '../deep-link';
import { ThemeToggle } from '../components/layout';
import { useSessionQuery, useSignedIn } from '../session';
import { usePageTitle } from '../components/page-title';

interface LoginForm {
  email: string;
  password: string;
}

export function LoginPage() {
  usePageTitle('Sign in');
  const navigate = useNavigate();
  const next = pathAfterSignIn(useLocation().search);
  const session = useSessionQuery();
  const signedIn = useSignedIn();
  const form = useForm<LoginForm>({ defaultValues: { email: '', password: '' } });
  const login = useMutation({
    mutationFn: (values: LoginForm) => unwrap(api.POST('/v1/console/login', { body: values })),
    onSuccess: (result) => {
      signedIn(result);
      void navigate(next, { replace: true });
    },
  });
  if (session.data) return <Navigate to={next} replace />;
  return (
    <main className="container narrow">
      <div className="corner"><ThemeToggle /></div>
      <article>
        <header>
          <h1>Sign in</h1>
          <p className="muted">Agent Automation console</p>
        </header>
        <form onSubmit={form.handleSubmit((values) => login.mutate(values))} noValidate>
          <label>
            Email
            <input type="email" autoComplete="username" {...form.register('email', { required: true })} />
          </label>
          <label>
            Password
            <input type="password" autoComplete="current-password" {...form.register('password', { required: true })} />
          </label>
          <ErrorNote error={login.error} />
          <button type="submit" aria-busy={login.isPending}>
            Sign in
          </button>
        </form>
        <footer className="muted">
          Forgot it? An admin sets a new one with <code>npm run cli -- users set-password --email …</code>
        </footer>
      </article>
    </main>
  );
}
