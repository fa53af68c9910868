import { parentSetupParams, parentSetupQuery, parentSetupSchema } from '@nrp/api';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { parentSetup } from '../parent-setup';
import { offchainProblems } from '../problems';

export function parentRoutes(ctx: OffchainContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/parents/:parentName/setup',
      operationId: 'parentSetup',
      summary: 'What a parent name needs on chain to serve offchain subnames',
      description:
        'Read from the chain of `network`: who controls the name (NameWrapper owner when wrapped, else registry ' +
        'owner; remembered up to NAME_CONTROL_CACHE_MS), its resolver, whether that is our offchain resolver, and ' +
        '`steps`: the transactions (`to`, `data`, `value` in wei) its controller sends, in order, so that every ' +
        'ENS client resolves its offchain subnames through this service — `setResolver` on the ENS registry, or on ' +
        'the NameWrapper for a wrapped name. `ready` with no steps once done.',
      tags: ['parents'],
      params: parentSetupParams,
      query: parentSetupQuery,
      responses: { 200: { description: 'The setup.', schema: parentSetupSchema } },
      problems: [
        commonProblems.INVALID_NAME,
        commonProblems.UPSTREAM_ERROR,
        offchainProblems.OFFCHAIN_RESOLVER_NOT_CONFIGURED,
      ],
      handler: ({ params, query }) => parentSetup(ctx, query.network, params.parentName),
    }),
  ];
}
