import type { Schemas } from '@aas/sdk';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { api, isUnauthorized, setCsrfToken, unwrap } from './api';

export type Session = Schemas['ConsoleSessionResponse'];

/** The signed-in user, or null; the CSRF token is handed to the API client as soon as it is known. */
export function useSessionQuery() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async (): Promise<Session | null> => {
      try {
        const session = await unwrap(api.GET('/v1/console/session'));
        setCsrfToken(session.csrf_token);
        return session;
      } catch (error) {
        if (isUnauthorized(error)) {
          setCsrfToken(undefined);
          return null;
        }
        throw error;
      }
    },
    staleTime: Infinity,
    retry: false,
  });
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** After sign-in or setup: the session the server answered becomes the current one. */
export function useSignedIn(): (session: Session) => void {
  const client = useQueryClient();
  return (session) => {
    setCsrfToken(session.csrf_token);
    client.clear();
    client.setQueryData(['session'], session);
  };
}
