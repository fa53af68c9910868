import { authProblems, SIGN_IN_BINDING_RULE } from '@nrp/auth';
import { verifiedMinterSchema, verifyMinterRequestSchema } from '@nrp/api';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import type { MintContext } from '../context';
import { verifyMinter } from './minters';

/** `POST /api/v1/minters/verify`. */
export function minterRoutes(ctx: MintContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/minters/verify',
      operationId: 'verifyMinter',
      budget: { bodyBytes: 16 * 1024, answerBytes: 8 * 1024, timeMs: 30_000 },
      security: 'signIn',
      summary: 'Verify a minter address with a sign-in message',
      description:
        'A minter proves control of its address with an EIP-4361 message (nonce scope `minter`, chain id of ' +
        '`network`). It then counts as a verified minter on that network for MINTER_VERIFICATION_TTL_SECONDS; ' +
        'listings with `requireVerifiedMinter` answer VERIFIED_MINTER_ADDRESS_REQUIRED for minters that are not. ' +
        'Recommended (the client helper `minterSignInMessage` does it): bind the message with the URI and only resource ' +
        '`{PUBLIC_BASE_URL}/api/v1/minters/verify` and a statement naming `verify`. ' +
        SIGN_IN_BINDING_RULE,
      tags: ['auth'],
      body: verifyMinterRequestSchema,
      responses: { 200: { description: 'The minter is verified.', schema: verifiedMinterSchema } },
      problems: Object.values(authProblems),
      handler: ({ body }) => verifyMinter(ctx, body.network, body),
    }),
  ];
}
