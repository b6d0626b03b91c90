import '@picocss/pico/css/pico.min.css';
import './styles.css';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Navigate, RouterProvider, createBrowserRouter, type RouteObject } from 'react-router';
import { isUnauthorized } from './api';
import { SignedIn } from './components/layout';
import { AgentPage } from './pages/agent-page';
import { AllRunsPage } from './pages/all-runs-page';
import { AgentsPage } from './pages/agents-page';
import { ApiKeysPage } from './pages/api-keys-page';
import { DeliveriesPage } from './pages/deliveries-page';
import { InstructionsTab } from './pages/instructions-tab';
import { LoginPage } from './pages/login-page';
import { NotFoundPage } from './pages/not-found-page';
import { RouteErrorPage } from './pages/route-error-page';
import { RunPage } from './pages/run-page';
import { RunsTab } from './pages/runs-tab';
import { ScheduleTab } from './pages/schedule-tab';
import { SetupPage } from './pages/setup-page';
import { TriggersTab } from './pages/triggers-tab';
import { WebhooksTab } from './pages/webhooks-tab';
import { applyTheme, storedTheme } from './theme';

applyTheme(storedTheme());

/** A 401 on any call means the session ended (signed out elsewhere, password reset): back to sign-in. */
const sessionEnded = (error: unknown) => {
  if (isUnauthorized(error)) queryClient.setQueryData(['session'], null);
};
const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: sessionEnded }),
  mutationCache: new MutationCache({ onError: sessionEnded }),
  defaultOptions: { queries: { retry: (count, error) => !isUnauthorized(error) && count < 1, refetchOnWindowFocus: true } },
});

// Every route has the error page: inside SignedIn, a page that throws keeps the navigation around it.
const failsSafely = (routes: RouteObject[]): RouteObject[] =>
  routes.map((route) => ({ ...route, errorElement: <RouteErrorPage />, children: route.children && failsSafely(route.children) }) as RouteObject);

const router = createBrowserRouter(
  failsSafely([
    { path: '/setup', element: <SetupPage /> },
    { path: '/login', element: <LoginPage /> },
    {
      element: <SignedIn />,
      children: [
        { index: true, element: <Navigate to="/agents" replace /> },
        { path: 'agents', element: <AgentsPage /> },
        {
          path: 'agents/:agentId',
          element: <AgentPage />,
          children: [
            { index: true, element: <RunsTab /> },
            { path: 'instructions', element: <InstructionsTab /> },
            { path: 'schedule', element: <ScheduleTab /> },
            { path: 'triggers', element: <TriggersTab /> },
            { path: 'webhooks', element: <WebhooksTab /> },
          ],
        },
        { path: 'runs', element: <AllRunsPage /> },
        { path: 'agents/:agentId/runs/:runId', element: <RunPage /> },
        { path: 'agents/:agentId/webhooks/:webhookId', element: <DeliveriesPage /> },
        { path: 'settings/api-keys', element: <ApiKeysPage /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ]),
  { basename: '/console' },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
