import { useMutation, useQuery } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Navigate, useNavigate } from 'react-router';
import { api, unwrap } from '../api';
import { ErrorNote, Loading } from '../components/feedback';
import { ThemeToggle } from '../components/layout';
import { useSignedIn } from '../session';
import { usePageTitle } from '../components/page-title';

interface SetupForm {
  setup_token: string;
  email: string;
  password: string;
  confirm: string;
}

/** First run: the operator creates the first user with the setup token `npm start` printed. Gone once a user can sign in. */
export function SetupPage() {
  usePageTitle('First run');
  const navigate = useNavigate();
  const signedIn = useSignedIn();
  const status = useQuery({ queryKey: ['setup-status'], queryFn: () => unwrap(api.GET('/v1/console/setup')) });
  const form = useForm<SetupForm>({ defaultValues: { setup_token: '', email: '', password: '', confirm: '' } });
  const setup = useMutation({
    mutationFn: (values: SetupForm) =>
      unwrap(api.POST('/v1/console/setup', { body: { setup_token: values.setup_token.trim(), email: values.email, password: values.password } })),
    onSuccess: (session) => {
      signedIn(session);
      void navigate('/settings/api-keys', { replace: true });
    },
  });
  if (status.isPending) return <main className="container narrow"><Loading what="the console" /></main>;
  if (status.data && !status.data.setup_required) return <Navigate to="/login" replace />;
  const { errors } = form.formState;
  return (
    <main className="container narrow">
      <div className="corner"><ThemeToggle /></div>
      <article>
        <header>
          <h1>Welcome</h1>
          <p>
            Create the first user of this installation. You need the one-time <strong>setup token</strong> that <code>npm start</code> printed
            (or run <code>npm run cli -- setup-token</code>).
          </p>
        </header>
        <form onSubmit={form.handleSubmit((values) => setup.mutate(values))} noValidate>
          <label>
            Setup token
            <input autoComplete="off" spellCheck={false} {...form.register('setup_token', { required: 'The setup token is required' })} aria-invalid={errors.setup_token ? true : undefined} />
            {errors.setup_token && <small>{errors.setup_token.message}</small>}
          </label>
          <label>
            Email
            <input type="email" autoComplete="username" {...form.register('email', { required: 'An email is required' })} aria-invalid={errors.email ? true : undefined} />
            {errors.email && <small>{errors.email.message}</small>}
          </label>
          <label>
            Password
            <input
              type="password"
              autoComplete="new-password"
              {...form.register('password', { minLength: { value: 12, message: 'At least 12 characters' }, maxLength: { value: 256, message: 'At most 256 characters' } })}
              aria-invalid={errors.password ? true : undefined}
            />
            {errors.password && <small>{errors.password.message}</small>}
          </label>
          <label>
            Password again
            <input
              type="password"
              autoComplete="new-password"
              {...form.register('confirm', { validate: (value, values) => value === values.password || 'The passwords differ' })}
              aria-invalid={errors.confirm ? true : undefined}
            />
            {errors.confirm && <small>{errors.confirm.message}</small>}
          </label>
          <ErrorNote error={setup.error} />
          <button type="submit" aria-busy={setup.isPending}>
            Create the first user
          </button>
        </form>
      </article>
    </main>
  );
}
