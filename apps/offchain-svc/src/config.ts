import type { z } from 'zod';
import { baseConfigSchema } from '@nrp/server';

export const configSchema = baseConfigSchema(3003);

export type Config = z.output<typeof configSchema>;
